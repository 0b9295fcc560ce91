//! The op manifest (`webtensor::op::manifest`) against what the ops do: every public unary,
//! binary and reduction op run on every dtype on every device gives the dtype the manifest
//! declares, or the error it declares; and the generated op reference is current.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::trials::device_main;
use common::*;
use webtensor::op::manifest::{self, Family};
use webtensor::{BinaryOp, DType, Device, Error, ReduceOp, Tensor, UnaryOp};

fn every_op_on_every_dtype(d: Device) {
    let mut errors = Vec::new();
    let mut ran = 0;
    for op in manifest::ops() {
        for (dtype, want) in &op.results {
            if *dtype == DType::F16 && !has_f16(d) {
                continue;
            }
            let x = Tensor::ones(&[3], *dtype, d).unwrap();
            let got = match op.family {
                Family::Unary => x.unary(UnaryOp::from_name(op.name).unwrap()),
                Family::Binary => x.binary(&x, BinaryOp::from_name(op.name).unwrap()),
                Family::Reduce => x.reduce(ReduceOp::from_name(op.name).unwrap(), None, false),
            };
            ran += 1;
            match (got, want) {
                (Ok(t), Ok(w)) if t.dtype() == *w => {
                    // The result is real: it reads back with the declared dtype's width.
                    if let Err(e) = t.to_dtype(DType::F32).and_then(|t| t.to_vec_blocking::<f32>()) {
                        errors.push(format!("{d}: {}({dtype}) did not read back: {e}", op.name));
                    }
                }
                (Ok(t), Ok(w)) => {
                    errors.push(format!("{d}: {}({dtype}) gave {}, the manifest says {w}", op.name, t.dtype()))
                }
                (Ok(t), Err(_)) => errors.push(format!(
                    "{d}: {}({dtype}) gave {}, the manifest says it is refused",
                    op.name,
                    t.dtype()
                )),
                (Err(e), Ok(w)) => {
                    errors.push(format!("{d}: {}({dtype}) failed ({e}), the manifest says {w}", op.name))
                }
                (Err(e), Err(reason)) => {
                    let msg = e.to_string();
                    if !matches!(e, Error::UnsupportedDType { .. }) || !msg.contains(op.name) || !msg.contains(reason) {
                        errors.push(format!(
                            "{d}: {}({dtype}) refused with `{msg}`, not naming the op and `{reason}`",
                            op.name
                        ));
                    }
                }
            }
        }
    }
    eprintln!("{d}: {ran} (op, dtype) pairs checked against the manifest");
    assert!(ran >= 66 * 6, "{d}: only {ran} pairs ran");
    assert!(errors.is_empty(), "{} disagreements:\n{}", errors.len(), errors.join("\n"));
}

device_main!(every_op_on_every_dtype, gradients_are_as_declared; plain: op_reference_is_current, manifest_covers_the_tables, the_guide_is_doctested_and_its_blocks_are_known);

/// `docs/guide/ops.md` is what `manifest::markdown` makes (`WEBTENSOR_BLESS=1` rewrites it).
fn op_reference_is_current() {
    let path = format!("{}/docs/guide/ops.md", env!("CARGO_MANIFEST_DIR"));
    let want = manifest::markdown();
    if std::env::var("WEBTENSOR_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{path} is not what the op tables make: regenerate it with `WEBTENSOR_BLESS=1 cargo test --test manifest`"
    );
}

/// Every op of the tables is in the manifest once, and every family's `ALL` is its table.
fn manifest_covers_the_tables() {
    let ops = manifest::ops();
    assert_eq!(ops.len(), UnaryOp::ALL.len() + BinaryOp::ALL.len() + ReduceOp::ALL.len());
    assert_eq!(UnaryOp::ALL.len(), 37);
    assert_eq!(BinaryOp::ALL.len(), 23);
    for op in &ops {
        assert!(!op.doc().trim().is_empty(), "{} has no doc", op.name);
        assert_eq!(op.results.len(), DType::ALL.len());
    }
}

/// Every op's `gradient` claim holds on float inputs: `yes` and `zero` ops record a backward
/// (and `zero` ones give a zero gradient), `no` ops record none.
fn gradients_are_as_declared(d: Device) {
    use webtensor::op::manifest::Gradient;
    let mut errors = Vec::new();
    for op in manifest::ops().into_iter().filter(|o| !o.custom) {
        // Ops that refuse floats (the bitwise ones) have no gradient to declare.
        if op.results.iter().any(|(dt, r)| *dt == DType::F32 && r.is_err()) {
            if op.gradient != Gradient::No {
                errors.push(format!("{}: refuses f32 but declares {:?}", op.name, op.gradient));
            }
            continue;
        }
        let x = Tensor::from_slice(&[0.3f32, 1.7, 2.2], &[3], d).unwrap().requires_grad_(true).unwrap();
        let y = match op.family {
            Family::Unary => x.unary(UnaryOp::from_name(op.name).unwrap()),
            Family::Binary => x.binary(
                &Tensor::from_slice(&[1.1f32, 0.4, 2.9], &[3], d).unwrap(),
                BinaryOp::from_name(op.name).unwrap(),
            ),
            Family::Reduce => x.reduce(ReduceOp::from_name(op.name).unwrap(), None, false),
        }
        .unwrap();
        if y.requires_grad() != (op.gradient != Gradient::No) {
            errors.push(format!("{}: declared {:?}, records a backward: {}", op.name, op.gradient, y.requires_grad()));
            continue;
        }
        if op.gradient == Gradient::No {
            continue;
        }
        y.to_dtype(DType::F32).unwrap().sum_all().unwrap().backward().unwrap();
        let g = f32s(&x.grad().unwrap());
        if (op.gradient == Gradient::Zero) != g.iter().all(|&v| v == 0.0) {
            errors.push(format!("{}: declared {:?}, gradient {g:?}", op.name, op.gradient));
        }
    }
    assert!(errors.is_empty(), "{d}: {}", errors.join("\n"));
}

/// Every chapter of the guide with Rust code is in src/lib.rs's doctest list (a new chapter
/// would otherwise go untested), and every code block of the README and the guide is one the
/// suites run or compile (`rust`, `rust,no_run`, `js`) or a command or output (`sh`, `text`).
fn the_guide_is_doctested_and_its_blocks_are_known() {
    let root = env!("CARGO_MANIFEST_DIR");
    let lib = std::fs::read_to_string(format!("{root}/src/lib.rs")).unwrap();
    let mut files = vec![format!("{root}/README.md")];
    for entry in std::fs::read_dir(format!("{root}/docs/guide")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path.display().to_string());
        }
    }
    let mut problems = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file.rsplit('/').next().unwrap();
        let listed =
            if name == "README.md" { "\"../README.md\"".to_string() } else { format!("\"../docs/guide/{name}\"") };
        if text.contains("```rust") && !lib.contains(&listed) {
            problems.push(format!("{name} has Rust blocks but is not in src/lib.rs's guide doctests"));
        }
        let mut open = false;
        for (i, line) in text.lines().enumerate() {
            let Some(tag) = line.trim_start().strip_prefix("```") else { continue };
            if open {
                open = false;
                continue;
            }
            open = true;
            if !["rust", "rust,no_run", "js", "sh", "text"].contains(&tag.trim()) {
                problems.push(format!("{name}:{}: a ```{tag} block, which no suite runs", i + 1));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
