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
