//! The backward pass: from a root tensor, every recorded node reachable from it runs once, after
//! all the nodes that feed it a gradient (Kahn's order over the reachable graph), with grad mode
//! off; gradients meeting at a node are summed; leaves accumulate theirs into `.grad`. Unless
//! `retain_graph` is set, each node frees its saved tensors and edges as soon as it has run.

use std::collections::HashMap;
use std::sync::Arc;

use super::regions::Grad;
use crate::device::policy::lock;
use crate::device::DeviceKind;
use crate::error::{Error, Result};
use crate::tensor::node::{self, Backward, Edge, Node};
use crate::tensor::Tensor;

const OP: &str = "backward";

/// Options of [`Tensor::backward_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BackwardOptions {
    /// Keep the graph (and the tensors it saved) after the pass, so that a second backward can
    /// go through it again (PyTorch's `retain_graph=True`).
    pub retain_graph: bool,
}

impl Tensor {
    /// Computes the gradient of this one-element tensor (a loss) with respect to every leaf
    /// that requires grad and adds it to their `.grad` (PyTorch's `loss.backward()`). The
    /// graph is freed afterwards. Natively this blocks where a gradient must leave a GPU for
    /// another device; in a browser such a graph needs [`Tensor::backward_async`].
    pub fn backward(&self) -> Result<()> {
        self.backward_with(None, BackwardOptions::default())
    }

    /// [`Tensor::backward`] for any shape: `grad` is the gradient of some scalar with respect to
    /// this tensor (of its shape; `None` means ones, only for one-element tensors).
    pub fn backward_with(&self, grad: Option<&Tensor>, options: BackwardOptions) -> Result<()> {
        let pass = Pass::new(self, grad, options)?;
        #[cfg(not(target_arch = "wasm32"))]
        {
            crate::block::block_on(pass.run())
        }
        #[cfg(target_arch = "wasm32")]
        {
            use futures::FutureExt;
            if let Some(n) = pass.needs_readback() {
                return Err(Error::invalid(
                    OP,
                    format!(
                        "the graph moves a gradient off {n} (through `to`), which a browser can only do \
                         asynchronously; call `await loss.backwardAsync()` instead"
                    ),
                ));
            }
            pass.run().now_or_never().unwrap_or_else(|| Err(Error::invalid(OP, "internal: a synchronous pass waited")))
        }
    }

    /// [`Tensor::backward_with`] that awaits transfers instead of blocking: the form that works
    /// in a browser for every graph.
    pub async fn backward_async(&self, grad: Option<&Tensor>, options: BackwardOptions) -> Result<()> {
        Pass::new(self, grad, options)?.run().await
    }
}

fn key(n: &Arc<Node>) -> *const Node {
    Arc::as_ptr(n)
}

/// One backward pass, checked and ready to run.
struct Pass {
    root: Tensor,
    seed: Tensor,
    retain: bool,
    /// Every node reachable from the root, and how many edges from reachable nodes enter it.
    deps: HashMap<*const Node, (Arc<Node>, usize)>,
    /// How many edges from reachable nodes enter each leaf (by id): a leaf's contributions are
    /// summed and accumulated once, after the last, as PyTorch's AccumulateGrad node does, so
    /// a tied weight's post-accumulate hooks see its whole gradient once.
    leaf_deps: HashMap<u64, usize>,
}

impl Pass {
    fn new(root: &Tensor, grad: Option<&Tensor>, options: BackwardOptions) -> Result<Pass> {
        if !root.requires_grad() {
            return Err(Error::invalid(
                OP,
                match root.cut_by() {
                    Some(op) => format!(
                        "this tensor does not require grad: it comes from `{op}`, which has no gradient \
                         (comparisons, argmax/argmin and integer results are not differentiable)"
                    ),
                    None => "this tensor does not require grad: none of the tensors it was computed from \
                             requires grad (call requires_grad_(true) on the leaves you want gradients for), \
                             or it was computed under no_grad"
                        .to_string(),
                },
            ));
        }
        let seed = match grad {
            None if root.numel() == 1 => root.ones_like()?,
            None => {
                return Err(Error::invalid(
                    OP,
                    format!(
                        "a gradient can be created implicitly only for one-element outputs, this one has shape \
                         {:?}; reduce it to a scalar (e.g. sum or mean) or pass a gradient of its shape to \
                         backward_with",
                        root.shape()
                    ),
                ))
            }
            Some(g) => {
                if g.shape() != root.shape() {
                    return Err(Error::ShapeMismatch {
                        op: OP,
                        lhs: root.shape().to_vec(),
                        rhs: g.shape().to_vec(),
                        msg: "the gradient must have the output's shape".into(),
                    });
                }
                root.same_device(g, OP)?;
                let _paused = node::pause();
                g.to_dtype(root.dtype())?.detach()
            }
        };
        let mut deps: HashMap<*const Node, (Arc<Node>, usize)> = HashMap::new();
        let mut leaf_deps: HashMap<u64, usize> = HashMap::new();
        if let Some(n) = root.node() {
            let mut stack = vec![n.clone()];
            deps.insert(key(n), (n.clone(), 0));
            while let Some(n) = stack.pop() {
                for edge in lock(&n.next).iter().flatten() {
                    match edge {
                        Edge::Node(c) => {
                            let entry = deps.entry(key(c)).or_insert_with(|| {
                                stack.push(c.clone());
                                (c.clone(), 0)
                            });
                            entry.1 += 1;
                        }
                        Edge::Leaf(t) => *leaf_deps.entry(t.id()).or_default() += 1,
                    }
                }
            }
        }
        Ok(Pass { root: root.clone(), seed, retain: options.retain_graph, deps, leaf_deps })
    }

    /// The device a gradient would have to leave asynchronously (a GPU, through `to`), if any.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    fn needs_readback(&self) -> Option<crate::device::Device> {
        self.deps.values().find_map(|(n, _)| match lock(&n.backward).as_deref() {
            Some(Backward::Move { from, .. }) if !matches!(from.kind(), DeviceKind::Cpu | DeviceKind::Meta) => {
                Some(*from)
            }
            _ => None,
        })
    }

    async fn run(mut self) -> Result<()> {
        let _paused = node::pause();
        let Some(root) = self.root.node().cloned() else {
            accumulate(&self.root, self.seed)?;
            return super::hooks::run_post_accumulate(&self.root);
        };
        let mut pending: HashMap<*const Node, Grad> = HashMap::from([(key(&root), Grad::Dense(self.seed.clone()))]);
        let mut pending_leaf: HashMap<u64, Grad> = HashMap::new();
        let mut ready = vec![root];
        while let Some(n) = ready.pop() {
            let grad = pending.remove(&key(&n)).map(Grad::dense).transpose()?;
            let rule = lock(&n.backward).clone().ok_or_else(|| {
                Error::invalid(
                    OP,
                    format!(
                        "the graph through `{}` was already freed by an earlier backward call; pass \
                         retain_graph: true to the first one to go through it twice",
                        n.name
                    ),
                )
            })?;
            let next: Vec<Option<Edge>> = lock(&n.next).clone();
            let grads: Vec<Option<Grad>> = match grad {
                None => next.iter().map(|_| None).collect(),
                Some(g) => match &*rule {
                    Backward::Rule(f) => {
                        let need: Vec<bool> = next.iter().map(Option::is_some).collect();
                        f(&g, &need)?.into_iter().map(|g| g.map(Grad::Dense)).collect()
                    }
                    Backward::Move { to, .. } => vec![Some(Grad::Dense(g.to(*to).await?))],
                    Backward::Narrow { dim, start } => {
                        let shape = n.inputs.first().map(|m| m.shape.clone()).unwrap_or_default();
                        vec![Some(Grad::Pieces { dim: *dim, shape, parts: vec![(*start, g)] })]
                    }
                },
            };
            if !self.retain {
                n.free();
            }
            for (i, (edge, g)) in next.into_iter().zip(grads).enumerate() {
                let Some(edge) = edge else { continue };
                let g = g.map(|g| conform(&n, i, g)).transpose()?;
                match edge {
                    Edge::Leaf(t) => {
                        if let Some(g) = g {
                            let sum = match pending_leaf.remove(&t.id()) {
                                Some(prev) => prev.add(g)?,
                                None => g,
                            };
                            pending_leaf.insert(t.id(), sum);
                        }
                        let left = self.leaf_deps.get_mut(&t.id()).map(|c| {
                            *c -= 1;
                            *c
                        });
                        if left == Some(0) {
                            if let Some(sum) = pending_leaf.remove(&t.id()) {
                                accumulate(&t, sum.dense()?)?;
                                super::hooks::run_post_accumulate(&t)?;
                            }
                        }
                    }
                    Edge::Node(c) => {
                        if let Some(g) = g {
                            let sum = match pending.remove(&key(&c)) {
                                Some(prev) => prev.add(g)?,
                                None => g,
                            };
                            pending.insert(key(&c), sum);
                        }
                        if let Some(entry) = self.deps.get_mut(&key(&c)) {
                            entry.1 -= 1;
                            if entry.1 == 0 {
                                ready.push(c);
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// [`conform_dense`] for a whole gradient or each piece of one (against the piece's stretch).
fn conform(n: &Node, i: usize, g: Grad) -> Result<Grad> {
    match g {
        Grad::Dense(t) => Ok(Grad::Dense(conform_dense(n, i, t, None)?)),
        Grad::Pieces { dim, shape, parts } => {
            let parts = parts
                .into_iter()
                .map(|(start, t)| Ok((start, conform_dense(n, i, t, Some((dim, start)))?)))
                .collect::<Result<_>>()?;
            Ok(Grad::Pieces { dim, shape, parts })
        }
    }
}

/// Checks a rule's gradient for input `i` of `n` against the input (a mismatch is a bug in the
/// rule, reported rather than passed on) and converts its dtype if the rule computed in another.
/// A piece (`Some((dim, start))`) must fit the input's shape along `dim` from `start`.
fn conform_dense(n: &Node, i: usize, g: Tensor, piece: Option<(usize, usize)>) -> Result<Tensor> {
    let meta = &n.inputs[i];
    let fits =
        match piece {
            None => g.shape() == meta.shape.as_slice(),
            Some((dim, start)) => {
                g.shape().len() == meta.shape.len()
                    && g.shape().iter().zip(&meta.shape).enumerate().all(|(d, (a, b))| {
                        if d == dim {
                            start + a <= *b
                        } else {
                            a == b
                        }
                    })
            }
        };
    if !fits || g.device() != meta.device {
        return Err(Error::invalid(
            n.name,
            format!(
                "internal: the backward rule gave a gradient of shape {:?} on {} for an input of shape {:?} on {}",
                g.shape(),
                g.device(),
                meta.shape,
                meta.device
            ),
        ));
    }
    g.to_dtype(meta.dtype)
}

/// Adds `g` to a leaf's `.grad` (PyTorch's AccumulateGrad).
fn accumulate(leaf: &Tensor, g: Tensor) -> Result<()> {
    let mut slot = lock(leaf.grad_slot());
    let sum = match slot.take() {
        Some(prev) => prev.add(&g).and_then(|s| s.realize().map(|()| s)).inspect_err(|_| *slot = Some(prev.clone()))?,
        None => g,
    };
    // Kept across backward passes: what the lazy tier recorded runs now, not holding every
    // accumulated part (a micro-batch loop's) until something reads the gradient.
    sum.realize()?;
    // A gradient that is part of a larger result (a fused backward's dw beside its dx) is kept
    // in storage of its own: held in `.grad` until the next zero_grad, the view would keep the
    // whole result alive (each LayerNorm's weight gradient pinned its [B, T, C] input gradient:
    // 327 MB through the next forward in nanoGPT's Shakespeare model).
    let sum = if sum.pins_more_than_itself() { sum.deep_copy()? } else { sum };
    *slot = Some(sum.detach());
    Ok(())
}
