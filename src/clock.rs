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
        js_sys::Date::now()
    }
}
