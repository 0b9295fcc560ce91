//! `webtensor`: the desktop binary. For now a device tour (`demo`), a device list (`devices`)
//! and a first benchmark (`bench`). Arguments are parsed by hand until the binary grows a
//! real CLI.

mod bench;
mod demo;

use std::process::ExitCode;

const USAGE: &str = "webtensor — tensors on WebGPU, natively and in the browser

usage:
  webtensor demo  [--device D]           run one computation on every device (or D) and compare
  webtensor devices                      list devices and which one is best
  webtensor bench [--device D] [--quick] matmul GFLOP/s and elementwise GB/s per device
  webtensor help                         this text

devices: cpu, webgpu[:N], vulkan[:N], gl[:N], meta";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let (cmd, rest) = args.split_first().map(|(c, r)| (c.as_str(), r)).unwrap_or(("help", &[]));
    let mut device = None;
    let mut quick = false;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--device" | "-d" => {
                let v = it.next().ok_or("--device needs a value, e.g. --device webgpu:0")?;
                device = Some(webtensor::Device::parse(v).map_err(|e| e.to_string())?);
            }
            "--quick" => quick = true,
            "--help" | "-h" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown option '{other}' for '{cmd}'\n\n{USAGE}")),
        }
    }
    match cmd {
        "demo" => demo::run(device),
        "devices" => {
            demo::print_devices();
            Ok(())
        }
        "bench" => bench::run(device, quick),
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command '{other}'\n\n{USAGE}")),
    }
}
