//! Every rendered WGSL variant parses and validates with naga (the version wgpu uses), with no
//! GPU involved, so a shader bug fails here even on machines without an adapter.
// Tests unwrap: a failure should panic with the value (helpers outside #[test] too).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[test]
fn every_kernel_variant_validates_with_naga() {
    let sources = webtensor::__all_kernel_sources();
    assert!(sources.len() > 150, "expected every variant, got {}", sources.len());
    let mut failures = Vec::new();
    for (name, src) in &sources {
        let module = match naga::front::wgsl::parse_str(src) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: parse: {}", e.emit_to_string(src)));
                continue;
            }
        };
        let mut v = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all());
        if let Err(e) = v.validate(&module) {
            failures.push(format!("{name}: validate: {}", e.emit_to_string(src)));
        }
    }
    assert!(failures.is_empty(), "{} of {} variants fail:\n{}", failures.len(), sources.len(), failures.join("\n"));
}

/// No kernel stores one component of a vector in shared memory (workgroup or storage).
/// Invocations that write different components of one vector race where a component store is
/// compiled as a read-modify-write of the whole vector, as Metal and D3D compilers may
/// (gpuweb#2112: wrong results in Chrome on both); Vulkan's scalar stores hide it from this
/// machine's adapters, so the rule is checked in the IR: each thread writes whole vectors.
#[test]
fn no_kernel_stores_a_component_of_a_shared_vector() {
    let mut found = Vec::new();
    for (name, src) in webtensor::__all_kernel_sources() {
        let module = naga::front::wgsl::parse_str(&src).unwrap();
        let mut v = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all());
        let info = v.validate(&module).unwrap();
        let functions = module.functions.iter().map(|(h, f)| (f, &info[h]));
        let entries = module.entry_points.iter().enumerate().map(|(i, e)| (&e.function, info.get_entry_point(i)));
        for (function, finfo) in functions.chain(entries) {
            let mut stores = Vec::new();
            collect_stores(&function.body, &mut stores);
            for pointer in stores {
                let (naga::Expression::Access { base, .. } | naga::Expression::AccessIndex { base, .. }) =
                    function.expressions[pointer]
                else {
                    continue;
                };
                let of_vector = match *finfo[base].ty.inner_with(&module.types) {
                    naga::TypeInner::Pointer { base, .. } => {
                        matches!(module.types[base].inner, naga::TypeInner::Vector { .. })
                    }
                    naga::TypeInner::ValuePointer { size, .. } => size.is_some(),
                    _ => false,
                };
                let global = root_global(&function.expressions, pointer);
                let shared = global.is_some_and(|g| {
                    !matches!(
                        module.global_variables[g].space,
                        naga::AddressSpace::Function | naga::AddressSpace::Private
                    )
                });
                if of_vector && shared {
                    found.push(format!("{name}: {}", function.name.clone().unwrap_or_default()));
                }
            }
        }
    }
    found.dedup();
    assert!(found.is_empty(), "component stores into shared vectors:\n{}", found.join("\n"));
}

/// The global variable a pointer expression points into, through its accesses.
fn root_global(
    expressions: &naga::Arena<naga::Expression>,
    mut e: naga::Handle<naga::Expression>,
) -> Option<naga::Handle<naga::GlobalVariable>> {
    loop {
        match expressions[e] {
            naga::Expression::Access { base, .. } | naga::Expression::AccessIndex { base, .. } => e = base,
            naga::Expression::GlobalVariable(g) => return Some(g),
            _ => return None,
        }
    }
}

/// The pointers of every `Store` in `block`, nested blocks included.
fn collect_stores(block: &naga::Block, out: &mut Vec<naga::Handle<naga::Expression>>) {
    for statement in block.iter() {
        match statement {
            naga::Statement::Store { pointer, .. } => out.push(*pointer),
            naga::Statement::Block(b) => collect_stores(b, out),
            naga::Statement::If { accept, reject, .. } => {
                collect_stores(accept, out);
                collect_stores(reject, out);
            }
            naga::Statement::Switch { cases, .. } => cases.iter().for_each(|c| collect_stores(&c.body, out)),
            naga::Statement::Loop { body, continuing, .. } => {
                collect_stores(body, out);
                collect_stores(continuing, out);
            }
            _ => {}
        }
    }
}
