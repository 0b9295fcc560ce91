//! Milliseconds from a monotonic-enough clock on every target (`std::time::Instant` panics on
//! wasm32-unknown-unknown, so the web reads JavaScript's clock).

/// Milliseconds since an arbitrary fixed point.
pub(crate) fn now_ms() -> f64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3
    }
    #[cfg(target_arch = "wasm32")]
    {
        // performance.now() is monotonic and sub-millisecond where it exists (browsers, Node);
        // Date.now() is the fallback.
        use js_sys::{Function, Reflect};
        use wasm_bindgen::JsCast;
        let perf = Reflect::get(&js_sys::global(), &"performance".into()).ok().filter(|p| p.is_object());
        perf.and_then(|p| {
            let now = Reflect::get(&p, &"now".into()).ok()?;
            now.dyn_ref::<Function>()?.call0(&p).ok()?.as_f64()
        })
        .unwrap_or_else(js_sys::Date::now)
    }
}
