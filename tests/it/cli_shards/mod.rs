//! Shards started by a scheduler: the shard chosen from flags and the
//! environment (`env`), shard processes of the real binary merged from a
//! folder (`run_merge`), and the `deploy/` manifests that start them
//! (`deploy`).

mod deploy;
mod env;
mod run_merge;
