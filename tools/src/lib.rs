//! Tools for tribunal agents: BM25 corpus search and sandboxed file tools.
