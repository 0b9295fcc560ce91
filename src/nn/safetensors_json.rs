//! The JSON of a `.safetensors` header, parsed by hand (see `safetensors_format.rs` for why):
//! a recursive-descent reader of exactly what the format's header may hold. It follows serde's
//! rules where the format's own reader relied on them (unknown fields skipped, a missing field
//! or a non-string metadata value refused, integers only for shapes and offsets) and is
//! stricter where those allowed ambiguity (a tensor name or field given twice is refused).
//! Nesting is depth-limited (serde_json's limit), so a hostile header cannot exhaust the stack.

/// Deepest JSON nesting the reader follows (serde_json's recursion limit).
const MAX_DEPTH: usize = 128;

/// A tensor's header entry, as written: the dtype's name, shape and byte range.
pub(super) struct Info {
    pub dtype: String,
    pub shape: Vec<usize>,
    pub start: usize,
    pub end: usize,
}

/// A failure, as the reason the header is not valid.
type Parsed<T> = std::result::Result<T, String>;
/// A header's tensor entries (in header order) and metadata (sorted by key).
type Header = (Vec<(String, Info)>, Vec<(String, String)>);

/// The tensors and `__metadata__` of `header`, which must hold one JSON object and nothing but
/// whitespace after it.
pub(super) fn parse_header(header: &str) -> Parsed<Header> {
    let mut p = Parser { s: header.as_bytes(), i: 0 };
    let parsed = p.header()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected text after the header's JSON at byte {}", p.i));
    }
    Ok(parsed)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    /// Consumes `c` (after whitespace), or fails naming where it was wanted.
    fn eat(&mut self, c: u8) -> Parsed<()> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected '{}' at byte {} of the header", c as char, self.i))
        }
    }

    /// `open item, item, ... close`, possibly empty: the shape objects and arrays share.
    fn list(&mut self, open: u8, close: u8, mut item: impl FnMut(&mut Self) -> Parsed<()>) -> Parsed<()> {
        self.eat(open)?;
        if self.peek() == Some(close) {
            self.i += 1;
            return Ok(());
        }
        loop {
            item(self)?;
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(c) if c == close => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(format!("expected ',' or '{}' at byte {} of the header", close as char, self.i)),
            }
        }
    }

    /// `{ "key": value, ... }`, calling `f` with each key (the parser then at its value).
    fn object(&mut self, mut f: impl FnMut(&mut Self, String) -> Parsed<()>) -> Parsed<()> {
        self.list(b'{', b'}', |p| {
            let key = p.string()?;
            p.eat(b':')?;
            f(p, key)
        })
    }

    /// The top-level object: tensors by name and the optional `__metadata__`.
    fn header(&mut self) -> Parsed<Header> {
        let mut tensors: Vec<(String, Info)> = Vec::new();
        let mut metadata = None;
        self.object(|p, key| {
            if key == "__metadata__" {
                if metadata.is_some() {
                    return Err("__metadata__ appears twice".into());
                }
                metadata = Some(p.metadata()?);
            } else {
                if tensors.iter().any(|(n, _)| *n == key) {
                    return Err(format!("'{key}' appears twice"));
                }
                let info = p.info(&key)?;
                tensors.push((key, info));
            }
            Ok(())
        })?;
        let mut metadata = metadata.unwrap_or_default();
        crate::order::sort_by(&mut metadata, |a, b| a.cmp(b));
        Ok((tensors, metadata))
    }

    /// `__metadata__`: string keys and values, or null.
    fn metadata(&mut self) -> Parsed<Vec<(String, String)>> {
        if self.literal("null") {
            return Ok(Vec::new());
        }
        let mut out: Vec<(String, String)> = Vec::new();
        self.object(|p, key| {
            let value = p.string().map_err(|e| format!("__metadata__ '{key}': {e} (values are strings)"))?;
            // A repeated key keeps the last value, as a JSON map does.
            out.retain(|(k, _)| *k != key);
            out.push((key, value));
            Ok(())
        })?;
        Ok(out)
    }

    /// One tensor's `{"dtype": .., "shape": [..], "data_offsets": [start, end]}`; other fields
    /// are skipped, as the format's reader does.
    fn info(&mut self, name: &str) -> Parsed<Info> {
        let (mut dtype, mut shape, mut offsets) = (None, None, None);
        self.object(|p, key| {
            let seen = match key.as_str() {
                "dtype" => dtype.replace(p.string()?).is_some(),
                "shape" => shape.replace(p.integers()?).is_some(),
                "data_offsets" => offsets.replace(p.integers()?).is_some(),
                _ => {
                    p.skip(0)?;
                    false
                }
            };
            if seen {
                return Err(format!("'{name}': field '{key}' appears twice"));
            }
            Ok(())
        })?;
        let missing = |f: &str| format!("'{name}': missing field '{f}'");
        let offsets = offsets.ok_or_else(|| missing("data_offsets"))?;
        let [start, end] = offsets[..] else {
            return Err(format!("'{name}': data_offsets must be [start, end]"));
        };
        Ok(Info {
            dtype: dtype.ok_or_else(|| missing("dtype"))?,
            shape: shape.ok_or_else(|| missing("shape"))?,
            start,
            end,
        })
    }

    fn literal(&mut self, word: &str) -> bool {
        self.ws();
        let hit = self.s[self.i..].starts_with(word.as_bytes());
        if hit {
            self.i += word.len();
        }
        hit
    }

    /// `[n, ...]` of non-negative integers.
    fn integers(&mut self) -> Parsed<Vec<usize>> {
        let mut out = Vec::new();
        self.list(b'[', b']', |p| {
            out.push(p.integer()?);
            Ok(())
        })?;
        Ok(out)
    }

    fn integer(&mut self) -> Parsed<usize> {
        self.ws();
        let start = self.i;
        while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        let digits = &self.s[start..self.i];
        if digits.is_empty() || matches!(self.s.get(self.i), Some(b'.' | b'e' | b'E')) {
            return Err(format!("expected a non-negative integer at byte {start} of the header"));
        }
        // Digits are ASCII, so the slice is valid UTF-8.
        std::str::from_utf8(digits)
            .ok()
            .and_then(|d| d.parse().ok())
            .ok_or(format!("the integer at byte {start} of the header is too large"))
    }

    /// A JSON string, unescaped.
    fn string(&mut self) -> Parsed<String> {
        self.eat(b'"')?;
        let mut out = Vec::new();
        loop {
            let c = *self.s.get(self.i).ok_or("unterminated string in the header")?;
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = *self.s.get(self.i).ok_or("unterminated string in the header")?;
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode()?,
                        _ => return Err(format!("invalid escape at byte {} of the header", self.i - 1)),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                c if c < 0x20 => return Err(format!("control character in a string at byte {}", self.i - 1)),
                c => out.push(c),
            }
        }
        // The header was checked to be UTF-8 and escapes add whole characters.
        String::from_utf8(out).map_err(|e| format!("a string in the header is not UTF-8: {e}"))
    }

    fn hex4(&mut self) -> Parsed<u32> {
        let digits = self.s.get(self.i..self.i + 4).ok_or("truncated \\u escape in the header")?;
        self.i += 4;
        std::str::from_utf8(digits)
            .ok()
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .ok_or(format!("invalid \\u escape at byte {} of the header", self.i - 4))
    }

    /// The character of a `\u` escape (a surrogate pair takes two).
    fn unicode(&mut self) -> Parsed<char> {
        let hi = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&hi) {
            if !self.s[self.i..].starts_with(b"\\u") {
                return Err("unpaired surrogate in a \\u escape of the header".into());
            }
            self.i += 2;
            let lo = self.hex4()?;
            if !(0xDC00..0xE000).contains(&lo) {
                return Err("unpaired surrogate in a \\u escape of the header".into());
            }
            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        } else {
            hi
        };
        char::from_u32(code).ok_or("unpaired surrogate in a \\u escape of the header".into())
    }

    /// Skips any JSON value (a field the reader does not use).
    fn skip(&mut self, depth: usize) -> Parsed<()> {
        if depth > MAX_DEPTH {
            return Err("the header nests too deeply".into());
        }
        match self.peek() {
            Some(b'"') => self.string().map(drop),
            Some(b'{') => self.object(|p, _| p.skip(depth + 1)),
            Some(b'[') => self.list(b'[', b']', |p| p.skip(depth + 1)),
            _ if self.literal("true") || self.literal("false") || self.literal("null") => Ok(()),
            Some(b'-' | b'0'..=b'9') => {
                while matches!(self.s.get(self.i), Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
                    self.i += 1;
                }
                Ok(())
            }
            _ => Err(format!("unexpected character at byte {} of the header", self.i)),
        }
    }
}
