//! The binary as a user runs it: `webtensor devices` and `webtensor info` answer the CUDA
//! question in one line, whatever the build and the machine (like `torch.cuda.is_available()`).

use std::process::Command;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_webtensor")).args(args).output().expect("the binary runs");
    assert!(out.status.success(), "webtensor {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn devices_and_info_say_where_cuda_stands_in_one_line() {
    for cmd in ["devices", "info"] {
        let out = run(&[cmd]);
        // The status line ("cuda: ..."), not the device rows ("cuda:0 ...").
        let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("cuda: ")).collect();
        assert_eq!(lines.len(), 1, "`webtensor {cmd}` should have one cuda line:\n{out}");
        let line = lines[0];
        if webtensor::cuda_compiled() {
            let n = webtensor::device_count(webtensor::DeviceKind::Cuda);
            if n == 0 {
                assert!(line.starts_with("cuda: built in, but no CUDA device is available ("), "{line}");
            } else {
                assert!(line.starts_with(&format!("cuda: built in; {n} device(s)")), "{line}");
            }
        } else {
            assert!(line.contains("not built into this version"), "{line}");
        }
        assert!(out.contains("cpu"), "{out}");
    }
}
