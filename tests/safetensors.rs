//! `.safetensors` checkpoints against files written by PyTorch's `safetensors` package
//! (`scripts/gen_safetensors_fixtures.py`): a PyTorch state dict loads (int64 counters become
//! int32) into a webtensor model on every device, webtensor's save of a dict is byte for byte
//! what PyTorch writes for it, every convertible dtype converts to the right values, and bad
//! files or values fail with a clear error.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;

use webtensor::nn::{self, Module};
use webtensor::{DType, Device, Tensor};

device_main!(pytorch_state_dict_loads_into_a_model, save_gives_pytorchs_bytes, dtypes_convert_on_load; plain: bad_files_and_values_fail_clearly);

fn fixture_bytes(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn pytorch_state_dict_loads_into_a_model(d: Device) {
    let dict = nn::load_safetensors(&fixture_bytes("token_net.safetensors"), Some(d)).unwrap();
    let want = &fixture_json("train.json")["token_net"]["state_dict"];
    let mut names: Vec<&str> = dict.iter().map(|(k, _)| k.as_str()).collect();
    names.sort();
    let mut expected: Vec<&str> = want.as_object().unwrap().keys().map(String::as_str).collect();
    expected.sort();
    assert_eq!(names, expected, "every tensor of the file");
    for (k, v) in &dict {
        assert_eq!(v.device(), d, "{k} is created on the device asked for");
        assert_eq!(v.shape(), usizes(&want[k]["shape"]).as_slice(), "{k}: shape");
        if k == "bn.num_batches_tracked" {
            assert_eq!(v.dtype(), DType::I32, "PyTorch's int64 counter arrives as int32");
            assert_eq!(i32s(v), vec![0]);
        } else {
            assert_eq!(f32s(v), floats(&want[k]["data"]), "{k}: values, exactly");
        }
    }
    // A PyTorch MLP's file loads into the same model built here.
    let model = relu_mlp(8, 16, 4, None, d);
    model.load_state_dict_blocking(&nn::load_safetensors(&fixture_bytes("mlp.safetensors"), None).unwrap()).unwrap();
    let w = &fixture_json("train.json")["mlp"][0]["state_dict"]["2.weight"]["data"];
    assert_eq!(f32s(&model.state_dict()[2].1), floats(w));
    assert_eq!(model.parameters()[2].device(), d, "loading keeps the model on its device");
}

fn save_gives_pytorchs_bytes(d: Device) {
    let file = fixture_bytes("mlp.safetensors");
    let dict: Vec<(String, Tensor)> = nn::load_safetensors(&file, Some(d)).unwrap();
    let meta = nn::safetensors_metadata(&file).unwrap();
    assert_eq!(meta, vec![("format".to_string(), "pt".to_string())]);
    let saved = nn::save_safetensors_blocking(&dict, &meta).unwrap();
    assert!(saved == file, "on {d}: webtensor's bytes differ from PyTorch's ({} vs {} bytes)", saved.len(), file.len());
    // Every dtype webtensor stores survives a round trip, views included.
    let x = Tensor::arange(0.0, 6.0, 1.0, DType::F32, d).unwrap().reshape(&[2, 3]).unwrap().t().unwrap();
    let round = vec![
        ("x_t".to_string(), x.clone()),
        ("h".to_string(), x.to_dtype(DType::F16).unwrap()),
        ("i".to_string(), x.to_dtype(DType::I32).unwrap().neg().unwrap()),
        ("u".to_string(), x.to_dtype(DType::U32).unwrap()),
        ("b".to_string(), x.gt_scalar(2.0).unwrap()),
        ("u8".to_string(), x.mul_scalar(60.0).unwrap().to_dtype(DType::U8).unwrap()),
        ("i8".to_string(), x.mul_scalar(-30.0).unwrap().to_dtype(DType::I8).unwrap()),
    ];
    let back = nn::load_safetensors(&nn::save_safetensors_blocking(&round, &[]).unwrap(), Some(d)).unwrap();
    for (name, t) in &round {
        let (_, got) = back.iter().find(|(k, _)| k == name).unwrap();
        assert_eq!((got.dtype(), got.shape()), (t.dtype(), t.shape()), "{name}");
        let as_f32 = |t: &Tensor| f32s(&t.to_dtype(DType::F32).unwrap());
        assert_eq!(as_f32(got), as_f32(t), "on {d}: {name} round-trips");
    }
}

fn dtypes_convert_on_load(d: Device) {
    let dict = nn::load_safetensors(&fixture_bytes("dtypes.safetensors"), Some(d)).unwrap();
    let get = |k: &str| dict.iter().find(|(n, _)| n == k).map(|(_, t)| t.clone()).unwrap();
    assert_eq!(f32s(&get("f64")), vec![1.5, -2.25, 1e-3_f64 as f32, f32::INFINITY], "f64 rounds to f32");
    assert_eq!(f32s(&get("bf16")), vec![1.0, -0.5, 3.140625]);
    let h = get("f16");
    assert_eq!((h.dtype(), h.shape()), (DType::F16, &[2usize, 2][..]));
    assert_eq!(f32s(&h.to_dtype(DType::F32).unwrap()), vec![0.5, -1.0, 65504.0, 0.0]);
    assert_eq!(i32s(&get("i64")), vec![-5, i32::MAX, i32::MIN]);
    assert_eq!(i32s(&get("i16")), vec![-32768, 7]);
    // 8-bit integers load as themselves (PyTorch's uint8 images, int8 weights).
    assert_eq!((get("i8").dtype(), get("i8").to_vec_blocking::<i8>().unwrap()), (DType::I8, vec![-128, 127]));
    assert_eq!((get("u8").dtype(), get("u8").to_vec_blocking::<u8>().unwrap()), (DType::U8, vec![0, 255]));
    assert_eq!(get("bool").to_vec_blocking::<bool>().unwrap(), vec![true, false, true]);
    assert_eq!((i32s(&get("i32")), get("i32").shape().to_vec()), (vec![1, -2, 3], vec![1, 3]));
    assert_eq!((f32s(&get("scalar")), get("scalar").rank()), (vec![2.5], 0));
    let meta = nn::safetensors_metadata(&fixture_bytes("dtypes.safetensors")).unwrap();
    assert_eq!(meta, vec![("source".to_string(), "webtensor fixtures".to_string())]);
}

fn bad_files_and_values_fail_clearly() {
    let e = nn::load_safetensors(&fixture_bytes("big_int64.safetensors"), None).unwrap_err().to_string();
    assert!(e.contains("'count'") && e.contains("1099511627776") && e.contains("int32"), "{e}");
    let e = nn::load_safetensors(b"not a checkpoint at all", None).unwrap_err().to_string();
    assert!(e.contains("not a valid .safetensors file"), "{e}");
    let mut cut = fixture_bytes("mlp.safetensors");
    cut.truncate(cut.len() - 10);
    let e = nn::load_safetensors(&cut, None).unwrap_err().to_string();
    assert!(e.contains("not a valid .safetensors file"), "a truncated file: {e}");
    let x = Tensor::zeros(&[2], DType::F32, Device::CPU).unwrap();
    let e = nn::save_safetensors_blocking(&[("a".into(), x.clone()), ("a".into(), x)], &[]).unwrap_err().to_string();
    assert!(e.contains("'a' appears twice"), "{e}");
}
