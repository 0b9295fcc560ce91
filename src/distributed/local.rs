//! The `local` backend: a group whose ranks all live in this process (one per replica of
//! single-process data parallelism, on any mix of devices). A collective is a meeting point:
//! each rank's call adds its tensor to the collective's slot (the k-th collective of every
//! rank meets in slot k) and returns at once; waiting reduces the contributions on the first
//! rank's device, in rank order, and moves the result to the waiter's device, so every rank
//! gets the same bits. Ranks here take turns on one thread, so a wait before every rank has
//! joined could never be answered: it fails with an error naming the missing ranks instead of
//! hanging.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::device::policy::lock;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

use super::group::{check_rank, check_reduce, check_scatter_inputs, ProcessGroup, ReduceOp, Work};
use super::Backend;

/// Which collective a slot holds, with what a mismatch check needs.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    AllReduce(ReduceOp),
    Broadcast(usize),
    AllGather,
    ReduceScatter(ReduceOp),
    Barrier,
}

/// One collective: every rank's contribution as it arrives, and how many ranks have not yet
/// collected the result (the slot is freed when the last one has, or dropped its `Work`).
struct Slot {
    kind: Kind,
    shape: Vec<usize>,
    dtype: crate::DType,
    parts: Vec<Option<Vec<Tensor>>>,
    open_works: usize,
}

/// What the ranks of one local group share.
struct Shared {
    world: usize,
    /// How many collectives each rank has started: its next one meets in this slot.
    next: Vec<u64>,
    slots: HashMap<u64, Slot>,
}

/// One rank of a [`LocalGroup`].
pub struct LocalRank {
    rank: usize,
    shared: Arc<Mutex<Shared>>,
}

/// Makes the ranks of a single-process group.
pub struct LocalGroup;

impl LocalGroup {
    /// A group of `world_size` ranks in this process, one handle per rank.
    pub fn ranks(world_size: usize) -> Result<Vec<Arc<LocalRank>>> {
        if world_size == 0 {
            return Err(Error::invalid("LocalGroup::ranks", "a group needs at least one rank"));
        }
        let shared =
            Arc::new(Mutex::new(Shared { world: world_size, next: vec![0; world_size], slots: HashMap::new() }));
        Ok((0..world_size).map(|rank| Arc::new(LocalRank { rank, shared: shared.clone() })).collect())
    }
}

/// Frees a slot's share when its `Work` is waited or dropped.
struct Release {
    shared: Arc<Mutex<Shared>>,
    seq: u64,
}

impl Drop for Release {
    fn drop(&mut self) {
        let mut s = lock(&self.shared);
        if let Some(slot) = s.slots.get_mut(&self.seq) {
            slot.open_works -= 1;
            if slot.open_works == 0 {
                s.slots.remove(&self.seq);
            }
        }
    }
}

impl LocalRank {
    /// Forgets every collective in flight on every rank of the group, so that after a step
    /// failed partway (some ranks joined a collective, others never will) the next ones meet
    /// again. Works still held for the forgotten collectives fail when waited.
    pub fn reset_group(&self) {
        let mut s = lock(&self.shared);
        s.slots.clear();
        s.next.iter_mut().for_each(|n| *n = 0);
    }

    /// Adds this rank's `parts` to its next collective and returns the wait for the result.
    fn join(&self, op_name: &'static str, kind: Kind, parts: Vec<Tensor>) -> Result<Work> {
        let (shape, dtype) = match parts.first() {
            Some(t) => (t.shape().to_vec(), t.dtype()),
            None => (Vec::new(), crate::DType::F32),
        };
        let device = parts.first().map(Tensor::device);
        let seq = {
            let mut s = lock(&self.shared);
            let seq = s.next[self.rank];
            let world = s.world;
            let slot = s.slots.entry(seq).or_insert_with(|| Slot {
                kind: kind.clone(),
                shape: shape.clone(),
                dtype,
                parts: vec![None; world],
                open_works: world,
            });
            if slot.kind != kind || slot.shape != shape || slot.dtype != dtype {
                return Err(Error::invalid(
                    op_name,
                    format!(
                        "rank {} called {kind:?} on {shape:?} {dtype} as its collective #{seq}, but another rank \
                         called {:?} on {:?} {}; every rank must make the same collectives in the same order",
                        self.rank, slot.kind, slot.shape, slot.dtype
                    ),
                ));
            }
            slot.parts[self.rank] = Some(parts);
            s.next[self.rank] += 1;
            seq
        };
        let release = Release { shared: self.shared.clone(), seq };
        let rank = self.rank;
        Ok(Work::new(async move {
            let gathered: Vec<Vec<Tensor>> = {
                let s = lock(&release.shared);
                let slot =
                    s.slots.get(&release.seq).ok_or_else(|| Error::invalid(op_name, "internal: a freed slot"))?;
                let missing: Vec<usize> = (0..s.world).filter(|&r| slot.parts[r].is_none()).collect();
                if !missing.is_empty() {
                    return Err(Error::invalid(
                        op_name,
                        format!(
                            "rank {rank} waits for collective #{} that ranks {missing:?} have not joined; in one \
                             process every rank of a local group must start a collective before any rank waits \
                             for it",
                            release.seq
                        ),
                    ));
                }
                slot.parts.iter().map(|p| p.clone().unwrap_or_default()).collect()
            };
            let out = finish(&kind, gathered, rank, device).await;
            drop(release);
            out
        }))
    }
}

/// Combines the gathered contributions for `rank`, on `device`.
async fn finish(
    kind: &Kind,
    parts: Vec<Vec<Tensor>>,
    rank: usize,
    device: Option<crate::Device>,
) -> Result<Vec<Tensor>> {
    let world = parts.len();
    match kind {
        Kind::Barrier => Ok(Vec::new()),
        Kind::Broadcast(src) => Ok(vec![parts[*src][0].to(device_of(device)?).await?]),
        Kind::AllGather => {
            let mut out = Vec::with_capacity(world);
            for p in &parts {
                out.push(p[0].to(device_of(device)?).await?);
            }
            Ok(out)
        }
        Kind::AllReduce(op) => {
            let column: Vec<Tensor> = parts.iter().map(|p| p[0].clone()).collect();
            Ok(vec![reduce(&column, *op).await?.to(device_of(device)?).await?])
        }
        Kind::ReduceScatter(op) => {
            let column: Vec<Tensor> = parts.iter().map(|p| p[rank].clone()).collect();
            Ok(vec![reduce(&column, *op).await?.to(device_of(device)?).await?])
        }
    }
}

fn device_of(device: Option<crate::Device>) -> Result<crate::Device> {
    device.ok_or_else(|| Error::invalid("local collective", "internal: no tensor to take a device from"))
}

/// Reduces `column` (one tensor per rank) in rank order on the first one's device.
async fn reduce(column: &[Tensor], op: ReduceOp) -> Result<Tensor> {
    let home = column[0].device();
    let mut acc = column[0].clone();
    for t in &column[1..] {
        let t = t.to(home).await?;
        acc = match op {
            ReduceOp::Sum | ReduceOp::Avg => acc.add(&t)?,
            ReduceOp::Max => acc.maximum(&t)?,
            ReduceOp::Min => acc.minimum(&t)?,
        };
    }
    if op == ReduceOp::Avg {
        acc = acc.div_scalar(column.len() as f64)?;
    }
    Ok(acc)
}

impl ProcessGroup for LocalRank {
    fn backend(&self) -> Backend {
        Backend::Local
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn world_size(&self) -> usize {
        lock(&self.shared).world
    }

    fn local_rank(&self) -> usize {
        self.rank
    }

    fn all_reduce(&self, tensor: &Tensor, op: ReduceOp) -> Result<Work> {
        check_reduce("all_reduce", tensor, op)?;
        self.join("all_reduce", Kind::AllReduce(op), vec![tensor.detach()])
    }

    fn broadcast(&self, tensor: &Tensor, src: usize) -> Result<Work> {
        check_rank("broadcast", src, self.world_size())?;
        self.join("broadcast", Kind::Broadcast(src), vec![tensor.detach()])
    }

    fn all_gather(&self, tensor: &Tensor) -> Result<Work> {
        self.join("all_gather", Kind::AllGather, vec![tensor.detach()])
    }

    fn reduce_scatter(&self, inputs: &[Tensor], op: ReduceOp) -> Result<Work> {
        check_scatter_inputs(inputs, self.world_size())?;
        check_reduce("reduce_scatter", &inputs[0], op)?;
        self.join("reduce_scatter", Kind::ReduceScatter(op), inputs.iter().map(Tensor::detach).collect())
    }

    fn barrier(&self) -> Result<Work> {
        self.join("barrier", Kind::Barrier, Vec::new())
    }

    /// A local group shares this process: ending it ends every rank, so this exits.
    fn abort(&self, code: i32) {
        std::process::exit(code)
    }
}

/// Sums each parameter's gradient over the ranks and gives every rank the sum: `rows[r]` is rank
/// `r`'s parameter tensors (every row the same structure), `ranks[r]` its group handle. A
/// parameter no rank has a gradient for keeps none; the others contribute zeros. Every sum is
/// in hand before any gradient is replaced, so a failed transfer (out of memory) leaves each
/// rank's own gradients as they were. What `DataParallel::all_reduce_gradients` and JS
/// `DataParallel.allReduceGradients` run.
pub(crate) async fn all_reduce_gradients(rows: &[Vec<Tensor>], ranks: &[Arc<dyn ProcessGroup>]) -> Result<()> {
    let count = rows.first().map_or(0, Vec::len);
    let mut results: Vec<Vec<Option<Tensor>>> = vec![Vec::with_capacity(count); rows.len()];
    for j in 0..count {
        if rows.iter().all(|r| r[j].grad().is_none()) {
            results.iter_mut().for_each(|r| r.push(None));
            continue;
        }
        let mut works = Vec::with_capacity(rows.len());
        for (row, rank) in rows.iter().zip(ranks) {
            let g = match row[j].grad() {
                Some(g) => g,
                None => row[j].zeros_like()?,
            };
            works.push(rank.all_reduce(&g, ReduceOp::Sum)?);
        }
        for (res, w) in results.iter_mut().zip(works) {
            res.push(Some(w.wait_one().await?));
        }
    }
    for (row, res) in rows.iter().zip(results) {
        for (t, g) in row.iter().zip(res) {
            t.set_grad(g)?;
        }
    }
    Ok(())
}
