//! The runtime's load check (`runtime/examples/in_flight`) on mimalloc, the
//! allocator the `tribunal` program uses: how the loop does at 10,000 runs in
//! flight when the allocator has no arena locks to wait on.
//!
//! ```sh
//! cargo run --release --example in_flight_mimalloc -- 10000 50
//! ```

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../runtime/examples/in_flight/load.rs"]
mod load;

fn main() {
    load::main();
}
