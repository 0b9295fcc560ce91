//! Build script: the WGSL kernels (`src/shaders/*.wgsl`) go into the crate, and the npm
//! package's `.wasm`, with their comments, indentation and blank lines stripped (14 KB of the
//! .wasm gzipped as written, 6 KB stripped). `shaders::body` includes these copies from
//! `OUT_DIR`; the sources keep their comments. WGSL has no string literals, so `//` always
//! starts a comment.

use std::error::Error;
use std::fs;
use std::path::Path;

fn main() -> Result<(), Box<dyn Error>> {
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
