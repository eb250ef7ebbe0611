//! Load check: N runs in flight at once, each with two model calls of
//! simulated latency (a tool call, then the final answer). Prints wall time
//! against the ideal and the process's peak resident memory (Linux `VmHWM`).
//!
//! ```sh
//! cargo run --release -p tribunal-runtime --example in_flight -- 10000 50
//! cargo run --release --example in_flight_mimalloc -- 10000 50   # the same, with mimalloc
//! ```
//!
//! With a third argument `floor` it spawns N plain tokio tasks that each
//! sleep twice for the latency and do nothing else: the floor this machine
//! and tokio set for the same shape, which no agent loop can beat.
//!
//! This one runs on the system allocator, as an embedder's program does
//! until it picks another.

mod load;

fn main() {
    load::main();
}
