//! [`SandboxLimits`]: what one sandboxed command may use, and [`LimitHit`]:
//! which limit cut it, as the stable code the model reads.

use std::time::Duration;

/// What one sandboxed command may use. Every field is a hard limit; the
/// defaults suit a project's test suite, not a build of a large code base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxLimits {
    /// Wall time from start to exit; at the limit every process of the
    /// command is killed. Default: 60 s.
    pub wall_time: Duration,
    /// CPU seconds of each process (`RLIMIT_CPU`: `SIGXCPU` at the limit,
    /// `SIGKILL` one second later). Default: 60.
    pub cpu_secs: u64,
    /// Writable private memory of each process in bytes (`RLIMIT_DATA`:
    /// heap and anonymous mappings; an allocation past it fails). Default:
    /// 1 GiB.
    pub memory_bytes: u64,
    /// Processes and threads the sandbox's user may run at once
    /// (`RLIMIT_NPROC`: a fork past it fails). Default: 256.
    pub processes: u64,
    /// Largest file a process may write, in bytes (`RLIMIT_FSIZE`: `SIGXFSZ`
    /// past it). Default: 256 MiB.
    pub file_bytes: u64,
    /// Output read from stdout and stderr together; past it every process
    /// is killed. Default: 1 MiB.
    pub output_bytes: u64,
    /// Bytes of each stream the model is shown: the start and the end,
    /// with a marker saying how much was left out between. Default: 8 KiB.
    pub shown_bytes: usize,
}

impl Default for SandboxLimits {
    fn default() -> Self {
        SandboxLimits {
            wall_time: Duration::from_secs(60),
            cpu_secs: 60,
            memory_bytes: 1 << 30,
            processes: 256,
            file_bytes: 256 << 20,
            output_bytes: 1 << 20,
            shown_bytes: 8 * 1024,
        }
    }
}

impl std::fmt::Display for SandboxLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "wall {} s, cpu {} s, memory {} MiB, processes {}, file {} MiB, output {} KiB (shown {} KiB a stream)",
            self.wall_time.as_secs_f64(),
            self.cpu_secs,
            self.memory_bytes >> 20,
            self.processes,
            self.file_bytes >> 20,
            self.output_bytes >> 10,
            self.shown_bytes >> 10,
        )
    }
}

/// The limit that cut a command. Memory and processes have no variant: a
/// command past them sees its allocation or fork fail and exits as it
/// chooses (its exit code and stderr say so), so the sandbox cannot tell
/// that apart from any other failure; a fork bomb ends at the wall time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LimitHit {
    /// The wall time ran out; every process was killed.
    WallTime,
    /// A process used up its CPU seconds (it died of `SIGXCPU` or the
    /// `SIGKILL` after it).
    CpuTime,
    /// A process wrote a file past the file size limit (`SIGXFSZ`).
    FileSize,
    /// stdout and stderr together passed the output limit; every process
    /// was killed.
    Output,
}

impl LimitHit {
    /// The stable code, e.g. `"wall_time"`.
    pub fn as_str(self) -> &'static str {
        match self {
            LimitHit::WallTime => "wall_time",
            LimitHit::CpuTime => "cpu_time",
            LimitHit::FileSize => "file_size",
            LimitHit::Output => "output",
        }
    }

    /// The limit a command's exit code shows, when the engine reports a
    /// death by signal `n` as `128 + n` (bubblewrap does): `SIGXCPU` (24)
    /// and `SIGXFSZ` (25). A command that exits 152 or 153 of its own
    /// accord reads the same; the engine cannot tell them apart.
    pub(crate) fn from_exit_code(code: i32) -> Option<LimitHit> {
        match code {
            152 => Some(LimitHit::CpuTime),
            153 => Some(LimitHit::FileSize),
            _ => None,
        }
    }
}

impl std::fmt::Display for LimitHit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
