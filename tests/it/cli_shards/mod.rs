//! Shards started by a scheduler: the shard chosen from flags and the
//! environment (`env`), and shard processes of the real binary merged from
//! a folder (`run_merge`).

mod env;
mod run_merge;
