//! Issue 45's module pieces in Rust: `ModuleList`/`ModuleDict` register their modules with
//! PyTorch's keys; a tied weight (`lm_head.weight = wte.weight`) is one slot: `parameters()`
//! lists it once, `state_dict` keeps both keys, loading fills both, `to` moves it once, and a
//! step through either name trains both.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use webtensor::nn::{
    self, BatchNorm1d, BatchNormOptions, Embedding, EmbeddingOptions, Linear, LinearOptions, Module, ModuleCore,
    ModuleDict, ModuleList,
};
use webtensor::{DType, Device, Tensor};

device_main!(containers_register_with_pytorchs_keys, tied_weights_are_one_slot, a_shared_submodule_is_one_set_of_slots);

fn lin(i: usize, o: usize, seed: u64, d: Device) -> Linear {
    Linear::new(i, o, LinearOptions { seed: Some(seed), device: Some(d), ..Default::default() }).unwrap()
}

fn containers_register_with_pytorchs_keys(d: Device) {
    let mut list = ModuleList::new();
    list.push(lin(2, 3, 1, d)).unwrap();
    list.push(lin(3, 2, 2, d)).unwrap();
    let keys: Vec<String> = list.state_dict().into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["0.weight", "0.bias", "1.weight", "1.bias"]);
    let x = Tensor::ones(&[1, 2], DType::F32, d).unwrap();
    let y = list.iter().try_fold(x.clone(), |h, m| m.forward(&h)).unwrap();
    assert_eq!(y.shape(), &[1, 2]);
    assert_eq!(list.len(), 2);
    assert_eq!(list.get(1).unwrap().weight().shape(), vec![2, 3]);
    assert!(list.forward(&x).unwrap_err().to_string().contains("has no forward"));
    let mut dict = ModuleDict::new();
    dict.insert("a", lin(2, 2, 3, d)).unwrap();
    dict.insert("b", lin(2, 1, 4, d)).unwrap();
    assert!(dict.insert("a", lin(2, 2, 5, d)).is_err(), "names are unique");
    assert_eq!(dict.keys().collect::<Vec<_>>(), ["a", "b"]);
    let keys: Vec<String> = dict.named_parameters().into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["a.weight", "a.bias", "b.weight", "b.bias"]);
    assert_eq!(dict.get("b").unwrap().forward(&x).unwrap().shape(), &[1, 1]);
}

/// nanoGPT's tying: a token embedding whose table is also the output layer's weight.
struct Tied {
    core: ModuleCore,
    wte: std::sync::Arc<Embedding>,
    head: std::sync::Arc<Linear>,
}

impl Tied {
    fn new(d: Device) -> Tied {
        let core = ModuleCore::new();
        let wte =
            Embedding::new(5, 3, EmbeddingOptions { seed: Some(1), device: Some(d), ..Default::default() }).unwrap();
        let mut head = Linear::new(3, 5, LinearOptions { bias: false, seed: Some(2), device: Some(d) }).unwrap();
        head.tie_weight(wte.weight()).unwrap();
        let wte = core.register_module("wte", wte).unwrap();
        let head = core.register_module("lm_head", head).unwrap();
        Tied { core, wte, head }
    }
}

impl Module for Tied {
    fn core(&self) -> &ModuleCore {
        &self.core
    }
    fn forward(&self, idx: &Tensor) -> webtensor::Result<Tensor> {
        self.head.forward(&self.wte.forward(idx)?)
    }
}

fn tied_weights_are_one_slot(d: Device) {
    let m = Tied::new(d);
    assert_eq!(m.parameters().len(), 1, "one slot, listed once");
    let keys: Vec<String> = m.state_dict().into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["wte.weight", "lm_head.weight"], "both keys, as PyTorch's state_dict");
    // Loading fills both (they are one slot).
    let table = Tensor::arange(0.0, 15.0, 1.0, DType::F32, Device::CPU).unwrap().reshape(&[5, 3]).unwrap();
    m.load_state_dict_blocking(&[("wte.weight".into(), table.clone()), ("lm_head.weight".into(), table.clone())])
        .unwrap();
    assert_eq!(f32s(&m.head.weight().tensor()), f32s(&table));
    // A step through the output layer changes the embedding too.
    let idx = Tensor::from_slice(&[1i32, 4], &[2], d).unwrap();
    let loss = nn::cross_entropy(&m.forward(&idx).unwrap(), &idx, Default::default()).unwrap();
    loss.backward().unwrap();
    let g = m.wte.weight().grad().expect("the shared slot has a gradient");
    assert_eq!(g.shape(), &[5, 3]);
    if d != Device::CPU {
        let cpu = Tied::new(Device::CPU);
        cpu.to_blocking(d).unwrap();
        assert_eq!(cpu.parameters().len(), 1);
        assert!(cpu.wte.weight().same_as(cpu.head.weight()), "to moved the one slot, still shared");
        assert_eq!(cpu.head.weight().device(), d);
    }
}

/// One BatchNorm registered under two names (PyTorch: `self.a = self.b = bn`): its parameters
/// and buffers are listed once (PyTorch's remove_duplicate, which JS `nn.Module` follows through
/// the same `nn::registry` rules), the state dict has both prefixes, and a dict with one of
/// them loads: the other names are the same slots.
fn a_shared_submodule_is_one_set_of_slots(d: Device) {
    let core = ModuleCore::new();
    let bn: std::sync::Arc<dyn Module> =
        std::sync::Arc::new(BatchNorm1d::new(3, BatchNormOptions { device: Some(d), ..Default::default() }).unwrap());
    core.register_shared("a", bn.clone()).unwrap();
    core.register_shared("b", bn).unwrap();
    struct Twice(ModuleCore);
    impl Module for Twice {
        fn core(&self) -> &ModuleCore {
            &self.0
        }
        fn forward(&self, x: &Tensor) -> webtensor::Result<Tensor> {
            Ok(x.clone())
        }
    }
    let m = Twice(core);
    let names = |v: Vec<String>| v.join(" ");
    assert_eq!(names(m.named_parameters().into_iter().map(|(k, _)| k).collect()), "a.weight a.bias");
    let buffers = names(m.named_buffers().into_iter().map(|(k, _)| k).collect());
    assert!(buffers.starts_with("a.running_mean a.running_var") && !buffers.contains("b."), "{buffers}");
    let dict = m.state_dict();
    assert_eq!(dict.iter().filter(|(k, _)| k.starts_with("b.")).count(), dict.len() / 2, "both prefixes saved");
    let only_a: Vec<(String, Tensor)> = dict
        .iter()
        .filter(|(k, _)| k.starts_with("a."))
        .map(|(k, t)| (k.clone(), if k == "a.running_mean" { t.add_scalar(1.0).unwrap() } else { t.clone() }))
        .collect();
    m.load_state_dict_blocking(&only_a).unwrap();
    let b_mean = m.state_dict().into_iter().find(|(k, _)| k == "b.running_mean").unwrap().1;
    assert_eq!(f32s(&b_mean), vec![1.0; 3], "b's running mean is a's");
    let err = m.load_state_dict_blocking(&[("a.weight".into(), Tensor::ones(&[4], DType::F32, d).unwrap())]);
    assert!(
        err.unwrap_err().to_string().contains("missing keys [\"a.bias\""),
        "strict, with the shared rules' message"
    );
    let bad = m.core().register_buffer("a", &Tensor::ones(&[1], DType::F32, d).unwrap()).err().unwrap().to_string();
    assert!(bad.contains("already registered in this module"), "{bad}");
}
