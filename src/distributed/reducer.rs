//! The gradient reducer of [`super::DistributedDataParallel`], after PyTorch's `Reducer`:
//! parameters are grouped into buckets in reverse order (the order backward tends to produce
//! their gradients; the first bucket small, 1 MiB, so communication starts early, the rest up to
//! `bucket_cap_mb`), one bucket per device and dtype. A post-accumulate hook on each parameter
//! marks it ready; when a bucket's last parameter is ready, its gradients are flattened into one
//! tensor and its all-reduce (average) starts while backward goes on. When every bucket has
//! started, the results are waited for in order and written back as the parameters' gradients.
//!
//! With `find_unused_parameters`, the forward output's graph is searched for the parameters it
//! reaches; the others are ready from the start (contributing their held gradient, or zeros), and
//! a usage count all-reduced with the last bucket tells which were used by no rank at all: those
//! keep their gradient untouched, as in PyTorch.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use crate::autograd::HookHandle;
use crate::device::policy::lock;
use crate::error::{Error, Result};
use crate::nn::Parameter;
use crate::tensor::Tensor;

use super::group::{ProcessGroup, ReduceOp, Work};

/// PyTorch's `dist._DEFAULT_FIRST_BUCKET_BYTES`.
const FIRST_BUCKET_BYTES: usize = 1 << 20;

/// One bucket: indices into the reducer's parameters.
pub(crate) struct Bucket {
    pub(crate) params: Vec<usize>,
}

/// What one iteration (forward to the end of backward) has done so far.
#[derive(Default)]
struct Iteration {
    /// Set by a forward that needs its gradients reduced; cleared when they have been.
    armed: bool,
    ready: Vec<bool>,
    /// Per bucket: parameters not yet ready.
    left: Vec<usize>,
    works: Vec<Option<Work>>,
    /// Parameters the forward's graph reached (all of them without `find_unused_parameters`).
    used: Vec<bool>,
    /// The all-reduced usage counts (with `find_unused_parameters`).
    usage: Option<Work>,
    /// Buckets started so far (always a prefix: they start in index order).
    launched: usize,
}

/// Where a rank's time in gradient communication went, summed over iterations: what
/// [`super::DistributedDataParallel::comm_stats`] reports.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CommStats {
    /// Iterations whose gradients were averaged.
    pub iterations: u64,
    /// Bucket all-reduces started.
    pub buckets: u64,
    /// Gradient bytes all-reduced.
    pub bytes: u64,
    /// Seconds spent starting bucket all-reduces inside backward (flattening, and with MPI the
    /// copy to the host).
    pub launch_s: f64,
    /// Seconds spent after backward waiting for the all-reduces and writing the gradients back:
    /// the communication that overlap did not hide.
    pub wait_s: f64,
}

/// Buckets, hooks and the state of the iteration in flight.
pub(crate) struct Reducer {
    pub(crate) params: Vec<Parameter>,
    pub(crate) names: Vec<String>,
    pub(crate) buckets: Vec<Bucket>,
    /// Parameter index to its bucket.
    bucket_of: Vec<usize>,
    group: Arc<dyn ProcessGroup>,
    find_unused: bool,
    /// Waits and writes back in the hook that launches the last bucket: right for one rank per
    /// process. A local group's ranks share a thread, so its driver finalises after every
    /// rank's backward instead.
    finalize_in_hook: bool,
    state: Mutex<Iteration>,
    hooks: Mutex<Vec<HookHandle>>,
    pub(crate) stats: Mutex<CommStats>,
}

impl Reducer {
    /// Buckets `params` (deduplicated, frozen ones left out) for `group`.
    pub(crate) fn new(
        named: Vec<(String, Parameter)>,
        group: Arc<dyn ProcessGroup>,
        bucket_cap_bytes: usize,
        find_unused: bool,
    ) -> Reducer {
        let mut seen = Vec::<Parameter>::new();
        let mut names = Vec::new();
        for (name, p) in named {
            if p.requires_grad() && !seen.iter().any(|q| q.same_as(&p)) {
                seen.push(p);
                names.push(name);
            }
        }
        let buckets = assign_buckets(&seen, bucket_cap_bytes);
        let mut bucket_of = vec![0; seen.len()];
        for (b, bucket) in buckets.iter().enumerate() {
            for &i in &bucket.params {
                bucket_of[i] = b;
            }
        }
        let finalize_in_hook = group.backend() != super::Backend::Local || group.world_size() == 1;
        Reducer {
            params: seen,
            names,
            buckets,
            bucket_of,
            group,
            find_unused,
            finalize_in_hook,
            state: Mutex::new(Iteration::default()),
            hooks: Mutex::new(Vec::new()),
            stats: Mutex::new(CommStats::default()),
        }
    }

    /// Called by a forward whose gradients must be reduced: checks that the last iteration
    /// finished, hooks the parameters' current tensors, and (with `find_unused_parameters`)
    /// marks the parameters `output` does not reach as ready.
    pub(crate) fn prepare(self: &Arc<Self>, output: &Tensor) -> Result<()> {
        self.check_finished()?;
        let n = self.params.len();
        let used: Vec<bool> = if self.find_unused {
            let reached = reachable_leaves(output);
            self.params.iter().map(|p| reached.contains(&p.tensor().id())).collect()
        } else {
            vec![true; n]
        };
        *lock(&self.state) = self.armed_iteration(used.clone());
        self.rehook()?;
        if self.find_unused {
            for (i, _) in used.iter().enumerate().filter(|(_, u)| !**u) {
                self.mark_ready(i)?;
            }
        }
        Ok(())
    }

    /// Takes part in an iteration without a batch (a replica whose shard of a small global
    /// batch is empty): every parameter is ready at once with the gradient it holds (zeros when
    /// none), so the other ranks' collectives find this one's.
    pub(crate) fn join_without_batch(self: &Arc<Self>) -> Result<()> {
        self.check_finished()?;
        let n = self.params.len();
        *lock(&self.state) = self.armed_iteration(vec![false; n]);
        (0..n).try_for_each(|i| self.mark_ready(i))
    }

    /// A new iteration waiting for every parameter, `used` marking the ones its forward reached.
    fn armed_iteration(&self, used: Vec<bool>) -> Iteration {
        Iteration {
            armed: true,
            ready: vec![false; self.params.len()],
            left: self.buckets.iter().map(|b| b.params.len()).collect(),
            works: (0..self.buckets.len()).map(|_| None).collect(),
            used,
            usage: None,
            launched: 0,
        }
    }

    /// PyTorch's error for an iteration whose reduction never finished: a parameter that got no
    /// gradient leaves its bucket waiting.
    fn check_finished(&self) -> Result<()> {
        let mut st = lock(&self.state);
        if !st.armed || st.ready.iter().all(|r| !r) {
            return Ok(());
        }
        let missing: Vec<&str> =
            st.ready.iter().enumerate().filter(|(_, r)| !**r).map(|(i, _)| self.names[i].as_str()).collect();
        let rank = self.group.rank();
        *st = Iteration::default();
        if missing.is_empty() {
            return Err(Error::invalid(
                "DistributedDataParallel",
                format!(
                    "rank {rank}: the prior iteration's gradients were all started but never collected; in a local \
                     group of several ranks call finish_reduction after every rank's backward. That iteration's \
                     gradients were not averaged."
                ),
            ));
        }
        Err(Error::invalid(
            "DistributedDataParallel",
            format!(
                "expected to have finished reduction in the prior iteration before starting a new one: the module \
                 has parameters that were not used in producing the loss (rank {rank}: {missing:?}). Pass \
                 find_unused_parameters: true to DdpOptions, or make sure every parameter takes part in the loss. \
                 That iteration's gradients were not averaged."
            ),
        ))
    }

    /// Registers a hook on every parameter's current tensor (an optimizer step replaces the
    /// tensors, so the hooks follow the values of this iteration).
    fn rehook(self: &Arc<Self>) -> Result<()> {
        let mut hooks = lock(&self.hooks);
        hooks.drain(..).for_each(|h| h.remove());
        for (i, p) in self.params.iter().enumerate() {
            let me = Arc::downgrade(self);
            let hook: crate::autograd::GradHook = Arc::new(move |_leaf: &Tensor| match me.upgrade() {
                Some(r) => r.mark_ready(i),
                None => Ok(()),
            });
            hooks.push(p.tensor().register_post_accumulate_grad_hook(hook)?);
        }
        Ok(())
    }

    /// Parameter `i`'s gradient for this iteration is final. Buckets start in index order
    /// (a full bucket waits for the ones before it), so every rank issues its collectives in
    /// the same order even where their backward passes finish buckets in different orders.
    fn mark_ready(&self, i: usize) -> Result<()> {
        let start = {
            let mut st = lock(&self.state);
            if !st.armed {
                return Ok(());
            }
            if st.ready[i] {
                return Err(Error::invalid(
                    "DistributedDataParallel",
                    format!(
                        "parameter {} got a second gradient in one iteration (two backward passes through one \
                         forward, or a reentrant backward); run one backward per forward, or accumulate inside \
                         no_sync",
                        self.names[i]
                    ),
                ));
            }
            st.ready[i] = true;
            let b = self.bucket_of[i];
            st.left[b] -= 1;
            let first = st.launched;
            while st.launched < self.buckets.len() && st.left[st.launched] == 0 {
                st.launched += 1;
            }
            first..st.launched
        };
        let last = start.end == self.buckets.len() && !start.is_empty();
        for b in start {
            self.launch(b)?;
        }
        if last && self.finalize_in_hook {
            #[cfg(not(target_arch = "wasm32"))]
            return crate::block::block_on(self.finalize());
        }
        Ok(())
    }

    /// Flattens bucket `b`'s gradients and starts their average over the group.
    fn launch(&self, b: usize) -> Result<()> {
        let t0 = crate::clock::now_ms();
        let _paused = crate::no_grad();
        let mut flat = Vec::with_capacity(self.buckets[b].params.len());
        for &i in &self.buckets[b].params {
            let t = self.params[i].tensor();
            let g = match t.grad() {
                Some(g) => g,
                None => t.zeros_like()?,
            };
            flat.push(g.flatten()?);
        }
        let flat = if flat.len() == 1 { flat.remove(0) } else { Tensor::cat(&flat, 0)? };
        let work = self.group.all_reduce(&flat, ReduceOp::Avg)?;
        let usage = if self.find_unused && b + 1 == self.buckets.len() {
            let used: Vec<i32> = lock(&self.state).used.iter().map(|&u| i32::from(u)).collect();
            // On the parameters' device: NCCL reduces only tensors on its GPU.
            let home = self.params.first().map_or(crate::Device::CPU, Parameter::device);
            let t = Tensor::from_slice(&used, &[used.len()], home)?;
            Some(self.group.all_reduce(&t, ReduceOp::Sum)?)
        } else {
            None
        };
        {
            let mut stats = lock(&self.stats);
            stats.buckets += 1;
            stats.bytes += (flat.numel() * flat.dtype().size_in_bytes()) as u64;
            stats.launch_s += (crate::clock::now_ms() - t0) / 1e3;
        }
        let mut st = lock(&self.state);
        st.works[b] = Some(work);
        if usage.is_some() {
            st.usage = usage;
        }
        Ok(())
    }

    /// Waits for every bucket (which must all have started) and writes the averages back as
    /// the parameters' gradients; a parameter no rank used keeps its own.
    pub(crate) async fn finalize(&self) -> Result<()> {
        let (works, usage) = {
            let mut st = lock(&self.state);
            if !st.armed {
                return Ok(());
            }
            if st.launched != self.buckets.len() {
                return Err(Error::invalid(
                    "DistributedDataParallel",
                    "internal: finalising before every bucket's all-reduce started",
                ));
            }
            st.armed = false;
            (std::mem::take(&mut st.works), st.usage.take())
        };
        let t0 = crate::clock::now_ms();
        let usage: Option<Vec<i32>> = match usage {
            Some(w) => Some(w.wait_one().await?.to_vec::<i32>().await?),
            None => None,
        };
        let _paused = crate::no_grad();
        for (b, work) in works.into_iter().enumerate() {
            let Some(work) = work else { continue };
            let flat = work.wait_one().await?;
            let mut at = 0;
            for &i in &self.buckets[b].params {
                let t = self.params[i].tensor();
                let n = t.numel();
                let shape: Vec<isize> = t.shape().iter().map(|&d| d as isize).collect();
                let g = flat.narrow(0, at, n)?.reshape(&shape)?;
                at += n;
                if usage.as_ref().is_some_and(|u| u[i] == 0) {
                    continue;
                }
                t.set_grad(Some(g))?;
            }
        }
        let mut stats = lock(&self.stats);
        stats.iterations += 1;
        stats.wait_s += (crate::clock::now_ms() - t0) / 1e3;
        Ok(())
    }

    /// Whether an iteration's gradients are still being reduced.
    pub(crate) fn in_flight(&self) -> bool {
        lock(&self.state).armed
    }

    /// Drops this iteration's reduction (a forward under `no_sync`, or a failed backward).
    pub(crate) fn disarm(&self) {
        *lock(&self.state) = Iteration::default();
    }
}

impl Drop for Reducer {
    fn drop(&mut self) {
        lock(&self.hooks).drain(..).for_each(|h| h.remove());
    }
}

/// Buckets over `params` in reverse order: a new bucket when the device or dtype changes or
/// the cap would be passed (1 MiB for the first, `cap` after).
pub(crate) fn assign_buckets(params: &[Parameter], cap: usize) -> Vec<Bucket> {
    let mut buckets: Vec<Bucket> = Vec::new();
    let mut bytes = 0usize;
    let mut key = None;
    for i in (0..params.len()).rev() {
        let t = params[i].tensor();
        let size = t.numel() * t.dtype().size_in_bytes();
        let k = (t.device(), t.dtype());
        let limit = if buckets.len() <= 1 { FIRST_BUCKET_BYTES.min(cap) } else { cap };
        let fits = key == Some(k) && bytes + size <= limit.max(1);
        match buckets.last_mut() {
            Some(b) if fits || (key == Some(k) && b.params.is_empty()) => {
                b.params.push(i);
                bytes += size;
            }
            _ => {
                buckets.push(Bucket { params: vec![i] });
                bytes = size;
                key = Some(k);
            }
        }
    }
    buckets
}

/// The ids of the leaves `output`'s graph reaches.
fn reachable_leaves(output: &Tensor) -> HashSet<u64> {
    let mut leaves = HashSet::new();
    let Some(root) = output.node() else {
        leaves.insert(output.id());
        return leaves;
    };
    let mut seen: HashMap<*const crate::tensor::node::Node, ()> = HashMap::new();
    let mut stack = vec![root.clone()];
    while let Some(n) = stack.pop() {
        if seen.insert(Arc::as_ptr(&n), ()).is_some() {
            continue;
        }
        for edge in lock(&n.next).iter().flatten() {
            match edge {
                crate::tensor::node::Edge::Node(c) => stack.push(c.clone()),
                crate::tensor::node::Edge::Leaf(t) => {
                    leaves.insert(t.id());
                }
            }
        }
    }
    leaves
}
