//! Complete models users can read and reuse, written with the public API as a user would:
//! `gpt` (nanoGPT's GPT, with its state-dict keys and a KV-cached `generate`).

pub mod gpt;
