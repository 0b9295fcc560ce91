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
    self, Embedding, EmbeddingOptions, Linear, LinearOptions, Module, ModuleCore, ModuleDict, ModuleList,
};
use webtensor::{DType, Device, Tensor};

device_main!(containers_register_with_pytorchs_keys, tied_weights_are_one_slot);

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
