//! Shards started by a scheduler: the shard chosen from flags and the
//! environment (`env`).

mod env;
