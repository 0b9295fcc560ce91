//! The rules of a module registry that Rust's `Module` and the npm package's JS `nn.Module`
//! share, written once here (the JS class calls them through `wasm/registry.rs`): which names
//! can be registered, which entries of a walk are the same slot listed again (PyTorch's
//! `remove_duplicate`), and how a state dict fills a module's slots (strict or not, tied
//! weights under any one of their names, shapes). Pure functions over names, identities and
//! shapes: each side keeps its own slots and walk order (this module's entries, then each
//! submodule's, depth first) and applies the answer.

/// Why `name` cannot be registered in a module, or `None` when it can: names are non-empty,
/// have no `.` (which separates a submodule's names in state-dict keys), and are unique across
/// a module's parameters, buffers and submodules (`taken`).
pub fn name_problem(name: &str, taken: bool) -> Option<String> {
    if name.is_empty() || name.contains('.') {
        Some(format!(
            "'{name}' is not a valid name: names are non-empty and without '.' (a dot separates submodules in state-dict keys)"
        ))
    } else if taken {
        Some(format!(
            "'{name}' is already registered in this module; names are unique across parameters, buffers and submodules"
        ))
    } else {
        None
    }
}

/// The positions of the entries to keep when each slot is listed once, under its first name
/// (PyTorch's `named_parameters`/`named_buffers` with `remove_duplicate=True`): `identity[i]`
/// names entry `i`'s slot.
pub fn first_of_each(identity: &[u64]) -> Vec<usize> {
    (0..identity.len()).filter(|&i| !identity[..i].contains(&identity[i])).collect()
}

/// A slot of a module as a state dict sees it: its dotted name, the identity of what it holds
/// (equal for the names of one tied weight) and its shape.
#[derive(Debug, Clone)]
pub struct Slot<'a> {
    /// The state-dict key (`fc.weight`).
    pub name: &'a str,
    /// Equal for every name of one shared slot.
    pub identity: u64,
    /// The slot's shape.
    pub shape: &'a [usize],
}

/// How a state dict fills a module: for each slot, the dict entry that fills it (`None`: a tied
/// slot the dict gives under another of its names, or a key left missing under `strict =
/// false`), and what was missing and unexpected.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadPlan {
    /// Per slot, in the module's order, the position in the dict of its value.
    pub sources: Vec<Option<usize>>,
    /// The module's keys the dict does not fill.
    pub missing: Vec<String>,
    /// The dict's keys the module has no slot for.
    pub unexpected: Vec<String>,
}

/// Matches a state dict (`(key, shape)` per entry) to a module's `slots`. A tied weight may come
/// under any one of its names (`safetensors.torch.save_model` writes one name of each shared
/// tensor: nanoGPT's `lm_head.weight` for the embedding too). Strict (PyTorch's default): any
/// missing or unexpected key is an error naming them all and the expected keys; otherwise they
/// are reported and skipped. A matched key of another shape is always an error. The error is
/// the message, without the op's name.
pub fn plan_load(slots: &[Slot<'_>], dict: &[(&str, &[usize])], strict: bool) -> Result<LoadPlan, String> {
    let position = |name: &str| dict.iter().position(|(k, _)| *k == name);
    let tied_elsewhere =
        |s: &Slot<'_>| slots.iter().any(|t| t.identity == s.identity && t.name != s.name && position(t.name).is_some());
    let missing: Vec<String> =
        slots.iter().filter(|s| position(s.name).is_none() && !tied_elsewhere(s)).map(|s| s.name.to_string()).collect();
    let unexpected: Vec<String> =
        dict.iter().filter(|(k, _)| !slots.iter().any(|s| s.name == *k)).map(|(k, _)| k.to_string()).collect();
    if strict && (!missing.is_empty() || !unexpected.is_empty()) {
        let expected: Vec<&str> = slots.iter().map(|s| s.name).collect();
        return Err(format!("missing keys {missing:?}, unexpected keys {unexpected:?} (expected {expected:?})"));
    }
    let mut sources = Vec::with_capacity(slots.len());
    for s in slots {
        let source = position(s.name);
        if let Some(i) = source {
            if dict[i].1 != s.shape {
                return Err(format!(
                    "'{}' has shape {:?} in the module but {:?} in the dict",
                    s.name, s.shape, dict[i].1
                ));
            }
        }
        sources.push(source);
    }
    Ok(LoadPlan { sources, missing, unexpected })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(name_problem("fc", false).is_none());
        assert!(name_problem("", false).is_some_and(|m| m.contains("non-empty")));
        assert!(name_problem("a.b", false).is_some_and(|m| m.contains("without '.'")));
        assert!(name_problem("fc", true).is_some_and(|m| m.contains("already registered")));
    }

    #[test]
    fn duplicates_keep_the_first_name() {
        assert_eq!(first_of_each(&[1, 2, 1, 3, 2]), vec![0, 1, 3]);
    }

    #[test]
    fn plans() {
        let (w, b) = ([2usize, 3], [2usize]);
        let slots = [
            Slot { name: "wte.weight", identity: 0, shape: &w },
            Slot { name: "bias", identity: 1, shape: &b },
            Slot { name: "head.weight", identity: 0, shape: &w },
        ];
        // The tied pair under one name fills both slots' identity.
        let plan = plan_load(&slots, &[("head.weight", &w), ("bias", &b)], true).unwrap();
        assert_eq!(plan.sources, vec![None, Some(1), Some(0)]);
        let err = plan_load(&slots, &[("bias", &b), ("x", &b)], true).unwrap_err();
        assert!(err.contains(r#"missing keys ["wte.weight", "head.weight"], unexpected keys ["x"]"#), "{err}");
        let loose = plan_load(&slots, &[("bias", &b), ("x", &b)], false).unwrap();
        assert_eq!(
            (loose.missing.len(), loose.unexpected, loose.sources),
            (2, vec!["x".to_string()], vec![None, Some(0), None])
        );
        assert!(plan_load(&slots, &[("bias", &w)], false)
            .unwrap_err()
            .contains("'bias' has shape [2] in the module but [2, 3]"));
    }
}
