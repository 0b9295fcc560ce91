//! The `.safetensors` container, written and read by hand: an 8-byte little-endian header
//! length, a JSON header (`{"__metadata__": {..}, "name": {"dtype", "shape", "data_offsets"}}`)
//! padded with spaces to a multiple of 8, then the tensors' bytes back to back. Hugging Face's
//! `safetensors` crate did this through serde_json, which made it 100 KB of the npm .wasm
//! (44 KB gzipped) for a header of a few objects; the rules here are that crate's (0.8): the
//! write order (dtypes by descending alignment, then names), serde_json's compact output and
//! string escapes, and the reader's checks (header at most 100 MB, offsets contiguous from 0,
//! each tensor's byte size equal to its shape times its dtype, nothing after the last tensor).
//! tests/safetensors.rs compares the written bytes with a file PyTorch wrote; the header's JSON
//! is parsed by `safetensors_json.rs`.

use crate::error::{Error, Result};

use super::safetensors_json::parse_header;

/// Most bytes a header may have (the `safetensors` crate's limit).
const MAX_HEADER: usize = 100_000_000;

/// The dtypes of the format, in the crate's order (which is also its write order, reversed),
/// with their sizes in bits.
const DTYPES: [(&str, usize); 22] = [
    ("BOOL", 8),
    ("F4", 4),
    ("F6_E2M3", 6),
    ("F6_E3M2", 6),
    ("U8", 8),
    ("I8", 8),
    ("F8_E5M2", 8),
    ("F8_E4M3", 8),
    ("F8_E8M0", 8),
    ("F8_E4M3FNUZ", 8),
    ("F8_E5M2FNUZ", 8),
    ("I16", 16),
    ("U16", 16),
    ("F16", 16),
    ("BF16", 16),
    ("I32", 32),
    ("U32", 32),
    ("F32", 32),
    ("C64", 64),
    ("F64", 64),
    ("I64", 64),
    ("U64", 64),
];

/// One tensor of a file: its dtype's name in the format, shape and bytes.
pub(crate) struct Entry<'a> {
    pub dtype: &'static str,
    pub shape: Vec<usize>,
    pub data: &'a [u8],
}

/// One tensor to write: its name, dtype (a name from the format's list) and bytes.
pub(crate) struct Record<'a> {
    pub name: &'a str,
    pub dtype: &'static str,
    pub shape: &'a [usize],
    pub data: &'a [u8],
}

fn rank(dtype: &str) -> usize {
    DTYPES.iter().position(|(n, _)| *n == dtype).unwrap_or(0)
}

/// Appends `s` as a JSON string, escaped as serde_json does.
fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The file's bytes: `records` in the format's order, `metadata` (sorted by key, so the same
/// input always gives the same bytes) as the header's `__metadata__` when not empty.
pub(crate) fn write(mut records: Vec<Record<'_>>, metadata: &[(String, String)], op: &'static str) -> Result<Vec<u8>> {
    crate::order::sort_by(&mut records, |a, b| rank(b.dtype).cmp(&rank(a.dtype)).then(a.name.cmp(b.name)));
    let mut header = String::from("{");
    if !metadata.is_empty() {
        let mut meta = metadata.to_vec();
        crate::order::sort_by(&mut meta, |a, b| a.cmp(b));
        header.push_str("\"__metadata__\":{");
        for (i, (k, v)) in meta.iter().enumerate() {
            if i > 0 {
                header.push(',');
            }
            push_str(&mut header, k);
            header.push(':');
            push_str(&mut header, v);
        }
        header.push('}');
    }
    let mut offset = 0usize;
    for (i, r) in records.iter().enumerate() {
        if i > 0 || !metadata.is_empty() {
            header.push(',');
        }
        push_str(&mut header, r.name);
        header.push_str(":{\"dtype\":");
        push_str(&mut header, r.dtype);
        header.push_str(",\"shape\":[");
        let dims: Vec<String> = r.shape.iter().map(|d| d.to_string()).collect();
        header.push_str(&dims.join(","));
        let end = offset.saturating_add(r.data.len());
        header.push_str(&format!("],\"data_offsets\":[{offset},{end}]}}"));
        offset = end;
    }
    header.push('}');
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    if header.len() > MAX_HEADER {
        return Err(Error::invalid(
            op,
            format!("the header would be {} bytes, over the format's 100 MB", header.len()),
        ));
    }
    let mut out = crate::device::cpu::host_vec::<u8>(8usize.saturating_add(header.len()).saturating_add(offset))?;
    out.extend_from_slice(&(header.len() as u64).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for r in &records {
        out.extend_from_slice(r.data);
    }
    Ok(out)
}

/// A parsed file: its tensors in storage order, and the header's `__metadata__`.
pub(crate) struct File<'a> {
    pub tensors: Vec<(String, Entry<'a>)>,
    pub metadata: Vec<(String, String)>,
}

/// Reads `bytes` as a `.safetensors` file; every failure is the reason it is not one.
pub(crate) fn read(bytes: &[u8]) -> std::result::Result<File<'_>, String> {
    let len: [u8; 8] = bytes.get(..8).and_then(|b| b.try_into().ok()).ok_or("shorter than its 8-byte header length")?;
    let n = usize::try_from(u64::from_le_bytes(len)).map_err(|_| "header length too large".to_string())?;
    if n > MAX_HEADER {
        return Err(format!("header length {n} is over the format's 100 MB"));
    }
    let header =
        bytes.get(8..8 + n).ok_or(format!("header length {n} runs past the end of the {} bytes", bytes.len()))?;
    let header = std::str::from_utf8(header).map_err(|e| format!("the header is not UTF-8: {e}"))?;
    let (mut infos, metadata) = parse_header(header)?;
    crate::order::sort_by(&mut infos, |(_, a), (_, b)| (a.start, a.end).cmp(&(b.start, b.end)));
    let data = &bytes[8 + n..];
    let mut at = 0usize;
    let mut tensors = Vec::with_capacity(infos.len());
    for (name, info) in infos {
        let &(dtype, bits_each) =
            DTYPES.iter().find(|(n, _)| *n == info.dtype).ok_or(format!("'{name}': unknown dtype '{}'", info.dtype))?;
        if info.start != at || info.end < info.start {
            return Err(format!(
                "'{name}': data_offsets [{}, {}] do not follow the previous tensor",
                info.start, info.end
            ));
        }
        let bits = info
            .shape
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .and_then(|n| n.checked_mul(bits_each))
            .ok_or(format!("'{name}': its shape overflows"))?;
        if bits % 8 != 0 || info.end - info.start != bits / 8 {
            return Err(format!("'{name}': {} bytes do not hold its shape of {}", info.end - info.start, dtype));
        }
        let slice = data.get(info.start..info.end).ok_or(format!("'{name}' runs past the end of the file"))?;
        at = info.end;
        tensors.push((name, Entry { dtype, shape: info.shape, data: slice }));
    }
    if at != data.len() {
        return Err(format!("the tensors cover {at} bytes but {} follow the header", data.len()));
    }
    Ok(File { tensors, metadata })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut v = (header.len() as u64).to_le_bytes().to_vec();
        v.extend_from_slice(header.as_bytes());
        v.extend_from_slice(data);
        v
    }

    #[test]
    fn writes_and_reads_back_escapes_metadata_and_order() {
        let (a, b) = ([1u8, 2, 3, 4], [5u8, 6]);
        let records = vec![
            Record { name: "z\"q\n\u{1}é", dtype: "U8", shape: &[2], data: &b },
            Record { name: "b", dtype: "F32", shape: &[], data: &a },
        ];
        let meta = vec![("k".to_string(), "v\\".to_string())];
        let bytes = write(records, &meta, "t").unwrap();
        let header_len = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        let header = std::str::from_utf8(&bytes[8..8 + header_len]).unwrap();
        assert_eq!(
            header.trim_end(),
            r#"{"__metadata__":{"k":"v\\"},"b":{"dtype":"F32","shape":[],"data_offsets":[0,4]},"z\"q\n\u0001é":{"dtype":"U8","shape":[2],"data_offsets":[4,6]}}"#
        );
        assert_eq!(header_len % 8, 0);
        let f = read(&bytes).unwrap();
        assert_eq!(f.metadata, meta);
        let names: Vec<&str> = f.tensors.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["b", "z\"q\n\u{1}é"]);
        assert_eq!((f.tensors[1].1.dtype, f.tensors[1].1.data, &f.tensors[1].1.shape[..]), ("U8", &b[..], &[2][..]));
    }

    #[test]
    fn reads_what_other_writers_may_write() {
        // Offsets out of name order, unknown fields, whitespace, \u escapes, a null metadata.
        let h = r#" { "x" : {"data_offsets":[2,4], "extra": [1, {"a": null}, -2.5e3], "shape":[1],"dtype":"I16"},
            "\u00e9\ud83d\ude00": {"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}, "__metadata__": null }  "#;
        let bytes = file(h, &[1, 0, 7, 0]);
        let f = read(&bytes).unwrap();
        assert_eq!(f.tensors[0].0, "é😀");
        assert_eq!((f.tensors[1].0.as_str(), f.tensors[1].1.data), ("x", &[7u8, 0][..]));
        assert!(f.metadata.is_empty());
    }

    #[test]
    fn refuses_malformed_files_with_a_reason() {
        let ok = r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
        assert!(read(&file(ok, &[0; 4])).is_ok());
        for (header, data, why) in [
            (ok, &[0u8; 3][..], "past the end"),
            (ok, &[0u8; 5][..], "cover 4 bytes"),
            (r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}"#, &[0u8; 4][..], "do not hold"),
            (r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#, &[0u8; 8][..], "do not follow"),
            (r#"{"a":{"dtype":"X","shape":[1],"data_offsets":[0,4]}}"#, &[0u8; 4][..], "unknown dtype"),
            (r#"{"a":{"dtype":"F32","data_offsets":[0,4]}}"#, &[0u8; 4][..], "missing field 'shape'"),
            (r#"{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}"#, &[0u8; 4][..], "non-negative"),
            (r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{}}"#, &[0u8; 4][..], "twice"),
            (r#"{"__metadata__":{"k":1}}"#, &[][..], "values are strings"),
            (r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}"#, &[0u8; 4][..], "expected"),
            (r#"{"__metadata__":{"k":"\ud800"}}"#, &[][..], "surrogate"),
        ] {
            let e = read(&file(header, data)).err().unwrap_or_default();
            assert!(e.contains(why), "{header}: {e}");
        }
        let deep = format!(
            r#"{{"a":{{"x":{}0{},"dtype":"U8","shape":[0],"data_offsets":[0,0]}}}}"#,
            "[".repeat(500),
            "]".repeat(500)
        );
        assert!(read(&file(&deep, &[])).err().unwrap_or_default().contains("too deeply"));
        assert!(read(&[1, 0]).is_err());
        assert!(read(&u64::MAX.to_le_bytes()).err().unwrap_or_default().contains("100 MB"));
    }
}

/// The reference implementation (Hugging Face's crate, a dev-dependency) and this module agree
/// byte for byte on what they write and on what they accept.
#[cfg(test)]
mod against_the_reference {
    use std::borrow::Cow;

    use ::safetensors::tensor::{Dtype, SafeTensors, View};

    use super::*;

    struct V(Dtype, Vec<usize>, Vec<u8>);

    impl View for &V {
        fn dtype(&self) -> Dtype {
            self.0
        }
        fn shape(&self) -> &[usize] {
            &self.1
        }
        fn data(&self) -> Cow<'_, [u8]> {
            Cow::Borrowed(&self.2)
        }
        fn data_len(&self) -> usize {
            self.2.len()
        }
    }

    #[test]
    fn same_bytes_as_the_reference_and_each_reads_the_other() {
        let kinds = [
            (Dtype::F32, "F32", 4),
            (Dtype::F16, "F16", 2),
            (Dtype::I32, "I32", 4),
            (Dtype::U32, "U32", 4),
            (Dtype::BOOL, "BOOL", 1),
            (Dtype::U8, "U8", 1),
            (Dtype::I8, "I8", 1),
        ];
        let names = ["w", "a.b", "Z", "émoji😀", "q\"uo\\te", "tab\tnl\n", "ctl\u{1f}", "0", ""];
        let mut seed = 12345u64;
        let mut next = |m: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % m
        };
        for round in 0..200 {
            let count = next(names.len()) + 1;
            let mut tensors = Vec::new();
            for name in names.iter().take(count) {
                let (dt, label, size) = kinds[next(kinds.len())];
                let shape: Vec<usize> = (0..next(4)).map(|_| next(4)).collect();
                let n: usize = shape.iter().product();
                let data: Vec<u8> = (0..n * size).map(|_| next(256) as u8).collect();
                tensors.push((name.to_string(), V(dt, shape, data), label));
            }
            let meta = if round % 3 == 0 { vec![("format".to_string(), "p\"t".to_string())] } else { vec![] };
            let theirs = ::safetensors::serialize(
                tensors.iter().map(|(n, v, _)| (n.as_str(), v)),
                (!meta.is_empty()).then(|| meta.iter().cloned().collect()),
            )
            .unwrap();
            let records =
                tensors.iter().map(|(n, v, l)| Record { name: n, dtype: l, shape: &v.1, data: &v.2 }).collect();
            let ours = write(records, &meta, "t").unwrap();
            assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&theirs), "round {round}");
            let back = read(&theirs).unwrap();
            let reference = SafeTensors::deserialize(&ours).unwrap();
            assert_eq!(back.tensors.len(), reference.len());
            for (name, e) in &back.tensors {
                let r = reference.tensor(name).unwrap();
                assert_eq!((e.shape.as_slice(), e.data), (r.shape(), r.data()), "{name}");
            }
            assert_eq!(back.metadata, meta);
        }
    }
}
