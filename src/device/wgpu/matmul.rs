//! Matmul launches on wgpu: the program chosen by shape (`MatmulProgram`), split-K for a few
//! output tiles over a long inner dimension, the register-blocked programs on software
//! adapters and the register-tiled one for large products on hardware GPUs.

use std::sync::Arc;

use super::context::Bind;
use super::kernels::{u, ROW_COLS};
use super::{WgpuDevice, WgpuStorage};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::op::binary::BinaryOp;
use crate::op::fill::Fill;
use crate::op::params::MatmulParams;
use crate::op::reduce::ReduceOp;
use crate::op::{MapOp, MatOperand, MatmulArgs, MatmulProgram};
use crate::shaders::{params, KernelKey, WG};

/// On software adapters, a matmul with fewer 64x64 output tiles than this and a long inner
/// dimension splits K (see `matmul_split_k`).
const SPLIT_K_TILES: usize = 16;
const SPLIT_K_MIN: usize = 4096;
/// On hardware GPUs, a long inner dimension is split until the product has about this many
/// workgroups (tiles times slices): enough to fill a large GPU several times over. A GPT's
/// weight gradients (`[C, B*T] @ [B*T, 4C]`: 144 tiles, each walking 16384 rows) otherwise
/// leave most of an H200 idle.
const SPLIT_K_GROUPS: usize = 1024;
/// The same for slices run by the register-tiled program, whose workgroups each do four 64x64
/// tiles' work: about as many as a 2048^3 product has (256), where that program ran 1.6x the
/// 64x64 one on an H200.
const REGISTER_SPLIT_K_GROUPS: usize = 256;
/// Matmul output tile (see matmul.wgsl).
const TILE: usize = 64;
/// The register-tiled program's output tile (see matmul_register.wgsl).
const REGISTER_TILE: usize = 128;
/// Hardware GPUs take the register-tiled program from this many of its 128x128 output tiles
/// (over all batches), unless `WEBTENSOR_MATMUL_REGISTER_TILES` says otherwise (read once; for
/// timing both programs on another GPU: 0 always, 18446744073709551615 never). Fewer, larger
/// tiles leave multiprocessors idle on small products, where the 64x64 program runs instead.
/// Measured on an H200 through NVIDIA's Vulkan (f32, square, GFLOP/s 64x64 -> register): 768^3
/// (36 tiles) 4356 -> 3231, 1024^3 (64) 7282 -> 6664, 1280^3 (100) 8697 -> 12262, 2048^3 (256)
/// 13389 -> 20964, 4096^3 16990 -> 26785; a GPT step at nanoGPT's size 146 -> 113 ms.
const REGISTER_MIN_TILES: usize = 80;

/// The tile count from which hardware GPUs run the register-tiled matmul (see
/// [`REGISTER_MIN_TILES`]).
fn register_min_tiles() -> usize {
    static SET: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let set = SET.get_or_init(|| std::env::var("WEBTENSOR_MATMUL_REGISTER_TILES").ok()?.trim().parse().ok());
    set.unwrap_or(REGISTER_MIN_TILES)
}

/// Whether hardware GPUs run the register-tiled products whose operands are laid out in vec4s
/// with matmul_register4.wgsl (vec4 loads, double-buffered tiles): yes, unless
/// `WEBTENSOR_MATMUL_VEC4=0` (read once; for timing both programs on one GPU).
fn register_vec4_on() -> bool {
    static SET: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SET.get_or_init(|| env_not_zero("WEBTENSOR_MATMUL_VEC4"))
}

/// Whether hardware GPUs split K in register tiles where enough of them result (else in 64x64
/// tiles): yes, unless `WEBTENSOR_MATMUL_REGISTER_SPLIT=0` (read once, as above).
fn register_split_on() -> bool {
    static SET: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SET.get_or_init(|| env_not_zero("WEBTENSOR_MATMUL_REGISTER_SPLIT"))
}

/// Whether the environment variable `name` is anything but "0" (unset included).
fn env_not_zero(name: &str) -> bool {
    !std::env::var(name).is_ok_and(|v| v.trim() == "0")
}

/// Workgroup memory matmul_register4.wgsl declares: two buffers of each operand's 8 x 33
/// vec4s of f32. WebGPU's default limit is 16384 bytes; adapters commonly allow 32768, and a
/// device opens with what its adapter allows (`WgpuDevice::new`). Where it is short, the
/// products run matmul_register.wgsl (8448 bytes).
const REGISTER4_WORKGROUP_BYTES: u32 = 2 * 2 * 8 * 33 * 16;

/// The register-tiled program for `g` and its parameters (from batch `base` on): in vec4s
/// where both operands allow it and the device has the workgroup memory (`roomy`).
fn register_program(g: &MatmulArgs, base: usize, roomy: bool) -> (MatmulProgram, MatmulParams) {
    let p = params::matmul(g, base);
    let program = match roomy && register_vec4_on() && g.register_vec4() {
        true => MatmulProgram::Register4,
        false => MatmulProgram::Register,
    };
    (program, p)
}

impl WgpuDevice {
    /// Whether matmul_register4.wgsl's workgroup memory fits this device's limit.
    fn register4_fits(&self) -> bool {
        self.limits.max_compute_workgroup_storage_size >= REGISTER4_WORKGROUP_BYTES
    }

    /// A matmul whose output is a few tiles but whose inner dimension is long (`X^T @ Y` over many
    /// samples) would run on a handful of workgroups, each walking all of K. Instead, K is cut
    /// into slices computed as a batch by the same kernel (a slice's operands are the originals
    /// shifted by the slice start, expressed as batch strides), and the slices are summed by the
    /// row reduction. With `register`, the slices run on the register-tiled program (slice
    /// lengths a multiple of its 8-deep steps, so vec4 layouts stay whole), else in 64x64 tiles.
    fn matmul_split_k(
        self: &Arc<Self>,
        a: &WgpuStorage,
        b: &WgpuStorage,
        g: &MatmulArgs,
        slices: usize,
        register: bool,
    ) -> Result<WgpuStorage> {
        let dtype = a.dtype();
        let tile = if register { REGISTER_TILE } else { TILE };
        let (gx, gy) = (g.n.div_ceil(tile), g.m.div_ceil(tile));
        let len = if register { g.k.div_ceil(slices).next_multiple_of(8) } else { g.k.div_ceil(slices) };
        let (full, rest) = (g.k / len, g.k % len);
        let total = full + (rest > 0) as usize;
        let mn = g.m * g.n;
        let partial = self.alloc(total * mn, dtype)?;
        let bind = [Bind::whole(a.buffer()), Bind::whole(b.buffer()), Bind::whole(partial.buffer())];
        // Each slice is a batch of a `k`-long product whose operands step by the slice length.
        let launch = |k, a_step, b_step, a_off, b_off, base, count: usize| {
            let a = MatOperand { offset: a_off, batch_stride: a_step, ..g.a };
            let b = MatOperand { offset: b_off, batch_stride: b_step, ..g.b };
            let slice = MatmulArgs { k, a, b, ..*g };
            let (program, p) = if register {
                register_program(&slice, base, self.register4_fits())
            } else {
                (MatmulProgram::Tiled, params::matmul(&slice, base))
            };
            let key = KernelKey::Matmul { dtype, program, bias: false };
            self.dispatch(key, &bind, &p, (u(gx), u(gy), u(count)))
        };
        // Slice s starts at inner index s * len: A moves len columns, B len rows.
        launch(len, len * g.a.col_stride, len * g.b.row_stride, g.a.offset, g.b.offset, 0, full)?;
        if rest > 0 {
            let (a0, b0) = (g.a.offset + full * len * g.a.col_stride, g.b.offset + full * len * g.b.row_stride);
            launch(rest, 0, 0, a0, b0, full, 1)?;
        }
        // partial is [slices, m*n]; sum over slices as rows of its transpose.
        let rows = Layout::contiguous(&[total, mn]).transpose("matmul", 0, 1)?;
        let by_row = self.alloc(total * mn, dtype)?;
        let by_row_layout = Layout::contiguous(&[mn, total]);
        self.launch_map(MapOp::Cast, (partial.buffer(), &rows, dtype), (by_row.buffer(), &by_row_layout, dtype))?;
        self.reduce(ReduceOp::Sum, &by_row, &Layout::contiguous(&[mn, total]), mn, total)
    }

    /// `a @ b` (see `KernelCall::Matmul`): the program by shape (`MatmulArgs::program`), split-K
    /// for few tiles over a long inner dim, and on software adapters the blocked programs. A
    /// bias is each program's epilogue (a variant with a fourth binding: `KernelKey::Matmul`'s
    /// `bias`), or, after split-K's sum, an add of its own.
    pub(crate) fn matmul(
        self: &Arc<Self>,
        a: &WgpuStorage,
        b: &WgpuStorage,
        bias: Option<&WgpuStorage>,
        g: &MatmulArgs,
    ) -> Result<WgpuStorage> {
        let dtype = a.dtype();
        let out = self.alloc(g.batch * g.m * g.n, dtype)?;
        if g.batch * g.m * g.n == 0 {
            return Ok(out);
        }
        // The bias as rows of the output: broadcast down them.
        let bias_rows = Layout::strided(&[g.batch * g.m, g.n], &[0, 1], g.bias_offset);
        if g.k == 0 {
            // An empty inner dimension sums nothing: the product is all zeros (plus the bias).
            return match bias {
                Some(bias) => {
                    let whole = Layout::contiguous(&[g.batch * g.m, g.n]);
                    self.launch_map(MapOp::Cast, (bias.buffer(), &bias_rows, dtype), (out.buffer(), &whole, dtype))?;
                    Ok(out)
                }
                None => self.fill(g.batch * g.m * g.n, Fill::Value(0.0), dtype),
            };
        }
        let mut binds = vec![Bind::whole(a.buffer()), Bind::whole(b.buffer()), Bind::whole(out.buffer())];
        binds.extend(bias.map(|s| Bind::whole(s.buffer())));
        let has_bias = bias.is_some();
        let max = self.limits.max_compute_workgroups_per_dimension as usize;
        let (gx, gy) = (g.n.div_ceil(TILE), g.m.div_ceil(TILE));
        if gx > max || gy > max {
            return Err(Error::TooLarge {
                op: "matmul",
                device: self.name(),
                bytes: (g.m.max(g.n)) as u64,
                limit_name: "max_compute_workgroups_per_dimension * 64 (rows or columns)",
                limit: (max * TILE) as u64,
            });
        }
        let program = g.program();
        if program != MatmulProgram::Tiled {
            // Every batch in one dispatch: one workgroup per output (Dot), one thread per output
            // row when rows are short (Naive's row mode), else one thread per output.
            let total = g.batch * g.m * g.n;
            let row_mode = program == MatmulProgram::Naive && g.n <= ROW_COLS as usize;
            let items = if row_mode { g.batch * g.m } else { total };
            let p = params::matmul_items(g, items, row_mode);
            let groups = if program == MatmulProgram::Dot { self.fold(total)? } else { self.groups(items, WG)? };
            self.dispatch(KernelKey::Matmul { dtype, program, bias: has_bias }, &binds, &p, groups)?;
            return Ok(out);
        }
        // f16 partials would be rounded (and can overflow) before the slices are summed; f16
        // keeps the single pass, which accumulates in f32.
        if g.batch == 1 && g.k >= SPLIT_K_MIN && dtype != DType::F16 {
            let tiles = gx * gy;
            // Hardware GPUs split for the register-tiled program where its slices make enough
            // of its tiles, else for 64x64 tiles. Slices of at least 1024 of the inner dim.
            let register_tiles = g.n.div_ceil(REGISTER_TILE) * g.m.div_ceil(REGISTER_TILE);
            let register_slices = (REGISTER_SPLIT_K_GROUPS / register_tiles).min(64).min(g.k / 1024);
            let register = !self.software()
                && register_split_on()
                && register_slices >= 2
                && register_tiles * register_slices >= register_min_tiles();
            let slices = match self.software() {
                _ if register => register_slices,
                true if tiles < SPLIT_K_TILES => (256 / tiles).clamp(2, 64),
                true => 1,
                false => (SPLIT_K_GROUPS / tiles).min(64),
            };
            let slices = slices.min(g.k / 1024);
            if slices >= 2 {
                drop(out);
                let sum = self.matmul_split_k(a, b, g, slices, register)?;
                let Some(bias) = bias else { return Ok(sum) };
                let whole = Layout::contiguous(&[g.m, g.n]);
                return self.binary(BinaryOp::Add, &sum, &whole, bias, &bias_rows, &[g.m, g.n]);
            }
        }
        // Software adapters run the tiles from registers (matmul_blocked.wgsl: no barriers),
        // with vec4 loads where the operands' rows allow them (matmul_blocked4.wgsl). Hardware
        // GPUs run large products in 128x128 tiles from registers (matmul_register.wgsl).
        // `row_blocks`: matmul_blocked's rows of blocks per workgroup (0 for the others).
        let (program, (x, y), row_blocks) = if self.software() {
            let blocked = if g.vec4_aligned() { MatmulProgram::Blocked4 } else { MatmulProgram::Blocked };
            // A workgroup's 16 rows of threads each take a block of `rows` rows of C; a short
            // product keeps only as many rows of blocks as it needs (a power of two) and spreads
            // the threads over more columns (see matmul_blocked.wgsl).
            let (rows, cols) = if blocked == MatmulProgram::Blocked4 { (16, 8) } else { (8, 4) };
            let groups = g.m.div_ceil(rows).next_power_of_two().clamp(1, 16);
            // Both at least TILE (or m itself), so the block counts stay within gx and gy,
            // which were checked against the workgroup limit above.
            let (tile_m, tile_n) = (groups * rows, 16 * cols * (16 / groups));
            (blocked, (g.n.div_ceil(tile_n), g.m.div_ceil(tile_m)), groups)
        } else {
            // Fewer blocks than 64x64 tiles, so within the limit checked above too.
            let (rx, ry) = (g.n.div_ceil(REGISTER_TILE), g.m.div_ceil(REGISTER_TILE));
            if g.batch * rx * ry >= register_min_tiles() {
                (MatmulProgram::Register, (rx, ry), 0)
            } else {
                (MatmulProgram::Tiled, (gx, gy), 0)
            }
        };
        let mut base = 0;
        while base < g.batch {
            let count = (g.batch - base).min(max);
            let (program, p) = match program {
                MatmulProgram::Register => register_program(g, base, self.register4_fits()),
                _ => (program, MatmulParams { row_blocks, ..params::matmul(g, base) }),
            };
            self.dispatch(KernelKey::Matmul { dtype, program, bias: has_bias }, &binds, &p, (u(x), u(y), u(count)))?;
            base += count;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::REGISTER4_WORKGROUP_BYTES;

    /// The limit check counts what the program declares: two arrays of 528 vec4s of 4-byte lanes.
    #[test]
    fn register4_workgroup_bytes_match_its_declarations() {
        let src = include_str!("../../shaders/matmul_register4.wgsl");
        let declared: Vec<&str> = src.lines().filter(|l| l.starts_with("var<workgroup>")).collect();
        assert_eq!(declared.len(), 2, "{declared:?}");
        assert!(declared.iter().all(|l| l.ends_with(": array<vec4<A>, 528>;")), "{declared:?}");
        assert_eq!(REGISTER4_WORKGROUP_BYTES, 2 * 528 * 16);
    }
}
