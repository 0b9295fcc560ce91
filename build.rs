//! Build script: the WGSL kernels (`src/shaders/*.wgsl`) go into the crate, and the npm
//! package's `.wasm`, with their comments, indentation and blank lines stripped (14 KB of the
//! .wasm gzipped as written, 6 KB stripped). `shaders::body` includes these copies from
//! `OUT_DIR`; the sources keep their comments. WGSL has no string literals, so `//` always
//! starts a comment.
//!
//! It also says whether the suite's `::cuda` device tests are built to run: with the `cuda`
//! feature, where `WEBTENSOR_REQUIRE_CUDA=1` or an NVIDIA driver library is found, the cfg
//! `webtensor_cuda_tests` is set; elsewhere those tests are marked ignored, so a machine without
//! CUDA reports them as ignored instead of printing `ok` for cases that never ran.

use std::error::Error;
use std::fs;
use std::path::Path;

fn main() -> Result<(), Box<dyn Error>> {
    cuda_tests();
    let out = std::env::var("OUT_DIR")?;
    println!("cargo:rerun-if-changed=src/shaders");
    for entry in fs::read_dir("src/shaders")? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            println!("cargo:rerun-if-changed={}", path.display());
            let name = path.file_name().ok_or("a shader path without a file name")?;
            fs::write(Path::new(&out).join(name), strip(&fs::read_to_string(&path)?))?;
        }
    }
    Ok(())
}

/// Sets `webtensor_cuda_tests` when the CUDA device tests can run here (see the module doc).
fn cuda_tests() {
    println!("cargo:rustc-check-cfg=cfg(webtensor_cuda_tests)");
    println!("cargo:rerun-if-env-changed=WEBTENSOR_REQUIRE_CUDA");
    println!("cargo:rerun-if-env-changed=LD_LIBRARY_PATH");
    if std::env::var_os("CARGO_FEATURE_CUDA").is_none() {
        return;
    }
    let required = std::env::var("WEBTENSOR_REQUIRE_CUDA").is_ok_and(|v| v == "1");
    let mut dirs: Vec<String> =
        ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/nvidia/lib64", "/usr/lib/wsl/lib"]
            .iter()
            .map(|d| d.to_string())
            .collect();
    if let Ok(paths) = std::env::var("LD_LIBRARY_PATH") {
        dirs.extend(paths.split(':').filter(|d| !d.is_empty()).map(str::to_string));
    }
    let driver =
        dirs.iter().any(|d| Path::new(d).join("libcuda.so.1").exists() || Path::new(d).join("nvcuda.dll").exists());
    if required || driver {
        println!("cargo:rustc-cfg=webtensor_cuda_tests");
    }
}

/// `src` without `//` comments, leading and trailing blanks, or empty lines.
fn strip(src: &str) -> String {
    let mut out = String::with_capacity(src.len() / 2);
    for line in src.lines() {
        let code = line.split("//").next().unwrap_or_default().trim();
        if !code.is_empty() {
            out.push_str(code);
            out.push('\n');
        }
    }
    out
}
