//! `RawDataParallel`: the Rust data-parallel algorithm under JS `wt.parallel.DataParallel`. The
//! JS class keeps what only JS can do (building replicas of JS modules, running their
//! forwards, checking the loss); the gradients are averaged here, by the same reducer that
//! `DistributedDataParallel` and Rust's `DataParallel` use: one rank of a local process group per
//! replica, buckets started from the post-accumulate hooks while each replica's backward runs,
//! and finished once every replica has run.
//!
//! JS modules own their parameter tensors, which an optimizer step replaces, so each call is
//! handed the replica's current parameter tensors (handles from `cloneHandle`), as
//! `RawOptimizer::step` is.

use std::sync::Arc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::js_err;
use super::tensor::RawTensor;
use crate::distributed::reducer::Reducer;
use crate::distributed::{LocalGroup, LocalRank, ProcessGroup};
use crate::error::Error;
use crate::nn::Parameter;
use crate::tensor::Tensor;

const OP: &str = "DataParallel";

/// PyTorch's default bucket size.
const BUCKET_BYTES: usize = 25 << 20;

/// The reducers of a JS DataParallel's replicas, over one local group.
#[wasm_bindgen]
pub struct RawDataParallel {
    ranks: Vec<Arc<LocalRank>>,
    reducers: Vec<Arc<Reducer>>,
    /// Every replica's parameter slots (frozen ones too), in the JS module's order.
    slots: Vec<Vec<Parameter>>,
}

#[wasm_bindgen]
impl RawDataParallel {
    /// A reducer per replica over `params` (`replicas` rows of `names.len()` parameters each,
    /// row-major) named `names`.
    #[wasm_bindgen(constructor)]
    pub fn new(params: Vec<RawTensor>, names: Vec<String>, replicas: usize) -> Result<RawDataParallel, JsValue> {
        let count = names.len();
        if replicas == 0 || params.len() != replicas * count {
            return Err(js_err(Error::invalid(
                OP,
                format!("internal: {} parameter tensors for {replicas} replicas of {count}", params.len()),
            )));
        }
        let ranks = LocalGroup::ranks(replicas).map_err(js_err)?;
        let mut slots = Vec::with_capacity(replicas);
        let mut reducers = Vec::with_capacity(replicas);
        for (r, rank) in ranks.iter().enumerate() {
            let row = params[r * count..(r + 1) * count]
                .iter()
                .map(|p| Parameter::adopt(OP, &p.t))
                .collect::<crate::Result<Vec<Parameter>>>()
                .map_err(js_err)?;
            let named = names.iter().cloned().zip(row.iter().cloned()).collect();
            let group: Arc<dyn ProcessGroup> = rank.clone();
            reducers.push(Arc::new(Reducer::new(named, group, BUCKET_BYTES, false)));
            slots.push(row);
        }
        Ok(RawDataParallel { ranks, reducers, slots })
    }

    /// Points replica `rank`'s slots at its current parameter tensors.
    fn adopt(&self, rank: usize, params: &[RawTensor]) -> Result<(), JsValue> {
        let slots = self.slots.get(rank).ok_or_else(|| js_err(Error::invalid(OP, format!("no replica {rank}"))))?;
        if slots.len() != params.len() {
            return Err(js_err(Error::invalid(
                OP,
                format!(
                    "replica {rank} was built with {} parameters and now has {}; replicas must keep their structure",
                    slots.len(),
                    params.len()
                ),
            )));
        }
        slots.iter().zip(params).try_for_each(|(s, p)| s.adopt_value(OP, &p.t)).map_err(js_err)
    }

    /// After replica `rank`'s forward made `output`: its backward through `output` averages
    /// its gradients with the other replicas' (`params`: its current parameter tensors).
    pub fn prepare(&self, rank: usize, params: Vec<RawTensor>, output: &RawTensor) -> Result<(), JsValue> {
        self.adopt(rank, &params)?;
        self.reducers[rank].prepare(&output.t).map_err(js_err)
    }

    /// Replica `rank` has no rows this step: it joins the averaging with the gradients it holds
    /// (zeros when none).
    #[wasm_bindgen(js_name = joinWithoutBatch)]
    pub fn join_without_batch(&self, rank: usize, params: Vec<RawTensor>) -> Result<(), JsValue> {
        self.adopt(rank, &params)?;
        self.reducers[rank].join_without_batch().map_err(js_err)
    }

    /// Resolves once every replica's averaged gradients are written (call after every
    /// replica's backward).
    pub fn finish(&self) -> Promise {
        let reducers = self.reducers.clone();
        super::promise(async move {
            for r in &reducers {
                r.finalize().await.map_err(js_err)?;
            }
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Forgets a step that failed partway, so the next one meets again.
    pub fn reset(&self) {
        self.reducers.iter().for_each(|r| r.disarm());
        if let Some(r) = self.ranks.first() {
            r.reset_group();
        }
    }

    /// Sums each parameter's gradient over the replicas through the group and gives every
    /// replica the sum (`params`: every replica's current parameters, row-major). A parameter
    /// no replica has a gradient for keeps none.
    #[wasm_bindgen(js_name = allReduceGradients)]
    pub fn all_reduce_gradients(&self, params: Vec<RawTensor>) -> Result<Promise, JsValue> {
        let count = self.slots.first().map_or(0, Vec::len);
        if params.len() != count * self.ranks.len() {
            return Err(js_err(Error::invalid(OP, "replicas must keep their structure")));
        }
        let rows: Vec<Vec<Tensor>> =
            params.chunks(count.max(1)).map(|c| c.iter().map(|p| p.t.clone()).collect()).collect();
        let ranks: Vec<Arc<dyn ProcessGroup>> = self.ranks.iter().map(|r| r.clone() as Arc<dyn ProcessGroup>).collect();
        Ok(super::promise(async move {
            crate::distributed::local::all_reduce_gradients(&rows, &ranks).await.map_err(js_err)?;
            Ok(JsValue::UNDEFINED)
        }))
    }
}
