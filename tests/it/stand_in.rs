//! The stand-in models of [`tribunal_testkit::stand_in`] with the launcher
//! of this package's binary against them.

pub(crate) use tribunal_testkit::launch::{code, stderr, stdout};
pub(crate) use tribunal_testkit::stand_in::*;

/// Runs `tribunal` in `cwd` with `env` set and nothing of the test's own
/// provider, proxy, log or shard variables
/// ([`tribunal_testkit::launch::run_with_env`]).
pub(crate) async fn tribunal<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
    cwd: &std::path::Path,
    env: &[(&str, String)],
) -> std::process::Output {
    tribunal_testkit::launch::run_with_env(crate::tribunal_bin(), args, cwd, env).await
}
