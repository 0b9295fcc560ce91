//! Fused optimizer updates: a kernel reads parameters, their gradients and the old state
//! (momentum buffer, moments) and writes the new values and the new state, so a step costs a
//! dispatch per parameter (CUDA's optim.cu), or per eight (wgpu's optim_multi.wgsl), instead
//! of a chain of elementwise ops. The arithmetic is PyTorch's in f32, in the order the composed
//! ops in `optim/` use (which stay as the path for f16 parameters, tensors past a binding, and
//! `fused: false`). Scalars that depend only on the
//! hyperparameters and the step count are computed once on the host, in f64, then rounded to
//! f32, as the composed ops' scalar operands are.
//!
//! [`OptimStep::apply`] is the CPU semantics and the reference for `shaders/optim_multi.wgsl` and
//! `device/cuda/kernels/optim.cu`, which spell the same statements.

use super::params::OptimParams;

/// Which update (and so which buffers the kernel binds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OptimKind {
    /// Plain SGD: reads `p, g`; writes `p'`.
    Sgd,
    /// SGD with momentum: reads `p, g, buf`; writes `p', buf'`.
    SgdMomentum,
    /// Adam / AdamW: reads `p, g, m, v`; writes `p', m', v'`.
    Adam,
}

impl OptimKind {
    /// How many state tensors the update reads and writes.
    pub fn states(self) -> usize {
        match self {
            OptimKind::Sgd => 0,
            OptimKind::SgdMomentum => 1,
            OptimKind::Adam => 2,
        }
    }
}

/// Most tensors one multi-tensor launch updates (`OptimMultiParams` has a table row for each).
pub(crate) const MULTI: usize = 8;

/// Flag: there is no state yet (the first step); the state inputs are not read.
pub const FIRST: u32 = 1;
/// Flag: weight decay is on.
pub const DECAY: u32 = 2;
/// Flag (SGD): Nesterov momentum. (Adam): decoupled weight decay (AdamW).
pub const VARIANT: u32 = 4;

/// One step's update rule with its host-computed scalars.
///
/// SGD scalars: `[wd, momentum, 1 - dampening, lr]`.
/// Adam scalars: `[wd or 1 - lr wd (AdamW), 1 - b1, b2, 1 - b2, sqrt(1 - b2^t), eps, lr / (1 - b1^t)]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OptimStep {
    /// The update.
    pub kind: OptimKind,
    /// `FIRST | DECAY | VARIANT` bits.
    pub flags: u32,
    /// The scalars, in the order above.
    pub scalars: [f32; 7],
}

impl OptimStep {
    /// SGD's update (PyTorch's `_single_tensor_sgd`).
    pub fn sgd(lr: f64, momentum: f64, dampening: f64, weight_decay: f64, nesterov: bool, first: bool) -> OptimStep {
        let kind = if momentum != 0.0 { OptimKind::SgdMomentum } else { OptimKind::Sgd };
        let flags = flag(first, FIRST) | flag(weight_decay != 0.0, DECAY) | flag(nesterov, VARIANT);
        let s = [weight_decay, momentum, 1.0 - dampening, lr, 0.0, 0.0, 0.0];
        OptimStep { kind, flags, scalars: s.map(|x| x as f32) }
    }

    /// Adam's (or, `decoupled`, AdamW's) update at step `t` (1-based), as PyTorch's
    /// `_single_tensor_adam`.
    pub fn adam(lr: f64, (b1, b2): (f64, f64), eps: f64, weight_decay: f64, decoupled: bool, t: u32) -> OptimStep {
        let flags = flag(t == 1, FIRST) | flag(weight_decay != 0.0, DECAY) | flag(decoupled, VARIANT);
        let wd = if decoupled { 1.0 - lr * weight_decay } else { weight_decay };
        let bc1 = 1.0 - b1.powi(t as i32);
        let bc2_sqrt = (1.0 - b2.powi(t as i32)).sqrt();
        let s = [wd, 1.0 - b1, b2, 1.0 - b2, bc2_sqrt, eps, lr / bc1];
        OptimStep { kind: OptimKind::Adam, flags, scalars: s.map(|x| x as f32) }
    }

    #[inline(always)]
    fn has(&self, f: u32) -> bool {
        self.flags & f != 0
    }

    /// The update of one element: `(p', state0', state1')` from the parameter `p`, gradient `g`
    /// and old state `s0`, `s1` (ignored on the first step). Unused outputs are 0. Inlined into
    /// the CPU loops, where its branches are loop-invariant.
    #[inline(always)]
    pub fn apply(&self, p: f32, g: f32, s0: f32, s1: f32) -> [f32; 3] {
        let s = &self.scalars;
        match self.kind {
            OptimKind::Sgd | OptimKind::SgdMomentum => {
                let g = if self.has(DECAY) { g + p * s[0] } else { g };
                if self.kind == OptimKind::Sgd {
                    return [p - g * s[3], 0.0, 0.0];
                }
                let b = if self.has(FIRST) { g } else { s0 * s[1] + g * s[2] };
                let step = if self.has(VARIANT) { g + b * s[1] } else { b };
                [p - step * s[3], b, 0.0]
            }
            OptimKind::Adam => {
                let (mut p, mut g) = (p, g);
                if self.has(DECAY) {
                    if self.has(VARIANT) {
                        p *= s[0];
                    } else {
                        g += p * s[0];
                    }
                }
                let (m0, v0) = if self.has(FIRST) { (0.0, 0.0) } else { (s0, s1) };
                let m = m0 + (g - m0) * s[1];
                let v = v0 * s[2] + (g * g) * s[3];
                let denom = v.sqrt() / s[4] + s[5];
                [p - (m / denom) * s[6], m, v]
            }
        }
    }

    /// The kernel parameters of this step over `n` elements: the flags and the scalars' f32
    /// bits (the launch fills in the operands' offsets).
    pub(crate) fn params(&self, n: usize) -> OptimParams {
        OptimParams {
            n,
            offsets: [0; 4],
            flags: self.flags as usize,
            scalars: self.scalars.map(|s| s.to_bits() as usize),
        }
    }
}

fn flag(on: bool, bit: u32) -> u32 {
    if on {
        bit
    } else {
        0
    }
}
