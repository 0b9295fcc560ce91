//! The shell blocks of the README and the guide hold `webtensor` commands; each must parse with
//! the binary's own argument parser, so a renamed or removed flag fails here rather than in a
//! reader's terminal (and the scripts and examples they name must exist). (The commands train for minutes or need MPI and GPUs, so they are parsed,
//! not run; the suite runs the binary itself in tests/cli.rs and CI runs the main job.)

use clap::Parser;

use super::Cli;

/// The README and every page of the guide, by path (for the messages) and text.
fn pages() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut paths = vec![root.join("README.md")];
    let guide = std::fs::read_dir(root.join("docs/guide")).expect("docs/guide");
    let mut pages: Vec<_> =
        guide.map(|e| e.expect("entry").path()).filter(|p| p.extension().is_some_and(|x| x == "md")).collect();
    pages.sort();
    paths.extend(pages);
    paths.into_iter().map(|p| (p.display().to_string(), std::fs::read_to_string(&p).expect("a page"))).collect()
}

/// The lines of `text`'s ```sh blocks, comments removed.
fn shell_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            inside = !inside && (t == "```sh" || t == "```bash" || t == "```shell");
            continue;
        }
        if inside {
            let code = match t.find(" #") {
                Some(i) => &t[..i],
                None => t,
            };
            if !code.is_empty() && !code.starts_with('#') {
                out.push(code.trim().to_string());
            }
        }
    }
    out
}

/// Words of a shell line: spaces split, double quotes group.
fn words(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The arguments a line passes to the binary: after a word naming it (`webtensor`,
/// `target/release/webtensor`) or after `--` of `cargo run -p webtensor-native`.
fn binary_args(line: &str) -> Option<Vec<String>> {
    let w = words(line);
    if w.first().is_some_and(|c| c == "cargo") && w.iter().any(|x| x == "webtensor-native") && w[1] == "run" {
        let at = w.iter().position(|x| x == "--")?;
        return Some(w[at + 1..].to_vec());
    }
    let at = w.iter().position(|x| x == "webtensor" || x.ends_with("/webtensor"))?;
    Some(w[at + 1..].to_vec())
}

#[test]
fn every_documented_command_parses() {
    let mut checked = 0;
    let mut errors = Vec::new();
    for (page, text) in pages() {
        for line in shell_lines(&text) {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            let w = words(&line);
            // A script of the repository, and `cargo run --example NAME`, must exist.
            if let Some(script) = w.first().filter(|c| c.starts_with("./")) {
                if !root.join(script).exists() {
                    errors.push(format!("{page}: `{line}`: {script} does not exist"));
                }
            }
            if let Some(at) = w.iter().position(|x| x == "--example") {
                let name = w.get(at + 1).map(String::as_str).unwrap_or_default();
                if !root.join(format!("examples/{name}.rs")).exists() {
                    errors.push(format!("{page}: `{line}`: no example named '{name}'"));
                }
            }
            let Some(args) = binary_args(&line) else { continue };
            let argv = std::iter::once("webtensor".to_string()).chain(args);
            if let Err(e) = Cli::try_parse_from(argv) {
                errors.push(format!("{page}: `{line}`: {}", e.to_string().lines().next().unwrap_or_default()));
            }
            checked += 1;
        }
    }
    assert!(errors.is_empty(), "documented commands the binary refuses:\n{}", errors.join("\n"));
    assert!(checked >= 15, "only {checked} documented commands found: the page list or the block syntax changed");
}

#[test]
fn the_parser_of_this_test_reads_shell_lines() {
    let md = "x\n```sh\nwebtensor train --device cpu   # comment\n# whole comment\nmpirun -np 2 target/release/webtensor sample --prompt \"ROMEO: hi\"\ncargo run --release -p webtensor-native -- demo\n```\n";
    let lines = shell_lines(md);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(binary_args(&lines[0]), Some(vec!["train".into(), "--device".into(), "cpu".into()]));
    assert_eq!(binary_args(&lines[1]), Some(vec!["sample".into(), "--prompt".into(), "ROMEO: hi".into()]));
    assert_eq!(binary_args(&lines[2]), Some(vec!["demo".into()]));
    assert!(Cli::try_parse_from(["webtensor", "train", "--no-such-flag"]).is_err(), "an unknown flag is refused");
}
