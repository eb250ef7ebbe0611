//! Which shard a process runs when a scheduler starts it: `--shard I/N`, or
//! the environment — `TRIBUNAL_SHARD=I/N` (a CI matrix), or Kubernetes
//! Indexed Jobs' `JOB_COMPLETION_INDEX` (0-based) with `--shards N` or
//! `TRIBUNAL_SHARDS=N`.
//!
//! Precedence: `--shard` over `TRIBUNAL_SHARD` over `JOB_COMPLETION_INDEX`;
//! `--shards` over `TRIBUNAL_SHARDS`. A source of lower precedence is not
//! read once one above it is set. An empty variable counts as unset (a CI
//! template that writes `TRIBUNAL_SHARD: ${{ matrix.shard }}` outside a
//! matrix). Every malformed or conflicting value is a [`ShardEnvError`]
//! naming the flag or variable and its value.
//!
//! The environment is read through a lookup function, so tests pass a map
//! instead of changing the process's variables:
//!
//! ```
//! use tribunal_judge::Shard;
//! use tribunal_judge::internal::run::shard_env::{ShardFlags, resolve_shard};
//!
//! let env = |name: &str| (name == "JOB_COMPLETION_INDEX").then(|| "0".to_string());
//! let flags = ShardFlags { shard: None, shards: Some(3) };
//! let chosen = resolve_shard(flags, &env).unwrap().unwrap();
//! assert_eq!(chosen.shard, Shard { index: 1, count: 3 }); // Kubernetes' 0 is our 1
//! assert_eq!(chosen.from.to_string(), "JOB_COMPLETION_INDEX=0 with --shards 3");
//! ```

use crate::shard::Shard;
use std::fmt;

/// The variable holding a shard as `I/N` (1 ≤ I ≤ N), like `--shard`.
pub const TRIBUNAL_SHARD: &str = "TRIBUNAL_SHARD";
/// The variable holding the shard count, like `--shards`.
pub const TRIBUNAL_SHARDS: &str = "TRIBUNAL_SHARDS";
/// The variable a Kubernetes Indexed Job sets in each pod: its completion
/// index, 0-based (shard `JOB_COMPLETION_INDEX + 1` of N).
pub const JOB_COMPLETION_INDEX: &str = "JOB_COMPLETION_INDEX";

/// What the command line says about sharding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShardFlags<'a> {
    /// `--shard I/N`, as written.
    pub shard: Option<&'a str>,
    /// `--shards N`.
    pub shards: Option<u32>,
}

/// A value as it was given: a flag (`--shards 4`) or an environment
/// variable (`TRIBUNAL_SHARDS=4`). Displayed the way it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Given {
    /// The flag (`--shard`, `--shards`) or the variable's name.
    pub name: &'static str,
    /// The value as written.
    pub value: String,
}

impl Given {
    fn new(name: &'static str, value: impl Into<String>) -> Self {
        Given {
            name,
            value: value.into(),
        }
    }
}

impl fmt::Display for Given {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.starts_with("--") {
            write!(f, "{} {}", self.name, self.value)
        } else {
            write!(f, "{}={}", self.name, self.value)
        }
    }
}

/// Where the chosen shard came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardOrigin {
    /// The `--shard I/N` flag.
    Flag(Given),
    /// The `TRIBUNAL_SHARD` variable.
    TribunalShard(Given),
    /// `JOB_COMPLETION_INDEX` (the first) with the count from `--shards`
    /// or `TRIBUNAL_SHARDS` (the second).
    CompletionIndex(Given, Given),
}

impl fmt::Display for ShardOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardOrigin::Flag(given) | ShardOrigin::TribunalShard(given) => given.fmt(f),
            ShardOrigin::CompletionIndex(index, count) => write!(f, "{index} with {count}"),
        }
    }
}

/// The shard a process runs and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChosenShard {
    /// The shard (1-based, like `--shard`).
    pub shard: Shard,
    /// Which flag or variable chose it.
    pub from: ShardOrigin,
}

/// A shard flag or variable that is malformed, out of range, missing its
/// other half or in conflict with another. Each variant has a stable
/// [`code`](ShardEnvError::code); the message names the flags and
/// variables with their values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShardEnvError {
    /// A value that does not parse (`shard_malformed`).
    #[error("{given} is not {expected}")]
    Malformed {
        /// The flag or variable.
        given: Given,
        /// What it should be.
        expected: &'static str,
    },
    /// `JOB_COMPLETION_INDEX` is not below the shard count
    /// (`shard_index_out_of_range`).
    #[error(
        "{index} is out of range for {count}: a Job of {} completions has indexes 0 to {}",
        .count.value, .max
    )]
    IndexOutOfRange {
        /// `JOB_COMPLETION_INDEX` and its value.
        index: Given,
        /// `--shards` or `TRIBUNAL_SHARDS` and its value.
        count: Given,
        /// The highest index the count allows.
        max: u32,
    },
    /// `JOB_COMPLETION_INDEX` without a shard count
    /// (`shard_index_without_count`).
    #[error(
        "{index} is set but the shard count is not: pass --shards N (or set {TRIBUNAL_SHARDS}=N), \
         N being the Job's completions"
    )]
    IndexWithoutCount {
        /// `JOB_COMPLETION_INDEX` and its value.
        index: Given,
    },
    /// A shard count without an index (`shard_count_without_index`).
    #[error(
        "{count} needs a shard index: {JOB_COMPLETION_INDEX} (a Kubernetes Indexed Job sets it) \
         or {TRIBUNAL_SHARD}=I/N in the environment, or --shard I/N"
    )]
    CountWithoutIndex {
        /// `--shards` or `TRIBUNAL_SHARDS` and its value.
        count: Given,
    },
    /// A shard count other than the chosen shard's N
    /// (`shard_count_conflict`).
    #[error("{count} conflicts with {shard}: the shard counts differ")]
    CountConflict {
        /// `--shards` or `TRIBUNAL_SHARDS` and its value.
        count: Given,
        /// `--shard` or `TRIBUNAL_SHARD` and its value.
        shard: Given,
    },
}

impl ShardEnvError {
    /// A stable code: `shard_malformed`, `shard_index_out_of_range`,
    /// `shard_index_without_count`, `shard_count_without_index` or
    /// `shard_count_conflict`.
    pub fn code(&self) -> &'static str {
        match self {
            ShardEnvError::Malformed { .. } => "shard_malformed",
            ShardEnvError::IndexOutOfRange { .. } => "shard_index_out_of_range",
            ShardEnvError::IndexWithoutCount { .. } => "shard_index_without_count",
            ShardEnvError::CountWithoutIndex { .. } => "shard_count_without_index",
            ShardEnvError::CountConflict { .. } => "shard_count_conflict",
        }
    }
}

const SHARD_SPEC: &str = "a shard: expected I/N with 1 <= I <= N";
const SHARD_COUNT: &str = "a shard count: expected a whole number of at least 1";
const COMPLETION_INDEX: &str = "a completion index: expected a whole number from 0";

/// The shard this process runs, from `flags` and the environment `env`
/// (a lookup by variable name; `None` for an unset variable): `Ok(None)`
/// when nothing asks for a shard. See the [module docs](self) for the
/// precedence.
pub fn resolve_shard(
    flags: ShardFlags<'_>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<ChosenShard>, ShardEnvError> {
    let var = |name: &'static str| {
        env(name)
            .filter(|v| !v.trim().is_empty())
            .map(|v| Given::new(name, v))
    };
    let count = match flags.shards {
        Some(n) => Some(Given::new("--shards", n.to_string())),
        None => var(TRIBUNAL_SHARDS),
    };
    let count = count
        .map(|given| match given.value.trim().parse::<u32>() {
            Ok(n) if n >= 1 => Ok((given, n)),
            _ => Err(ShardEnvError::Malformed {
                given,
                expected: SHARD_COUNT,
            }),
        })
        .transpose()?;

    // `--shard` or `TRIBUNAL_SHARD`; `true` for the flag.
    let spec = match flags.shard {
        Some(s) => Some((Given::new("--shard", s), true)),
        None => var(TRIBUNAL_SHARD).map(|given| (given, false)),
    };
    if let Some((given, flag)) = spec {
        let shard: Shard = given.value.parse().map_err(|_| ShardEnvError::Malformed {
            given: given.clone(),
            expected: SHARD_SPEC,
        })?;
        if let Some((count, n)) = count
            && n != shard.count
        {
            return Err(ShardEnvError::CountConflict {
                count,
                shard: given,
            });
        }
        let from = if flag {
            ShardOrigin::Flag(given)
        } else {
            ShardOrigin::TribunalShard(given)
        };
        return Ok(Some(ChosenShard { shard, from }));
    }

    match (var(JOB_COMPLETION_INDEX), count) {
        (Some(index), Some((count, n))) => {
            let Ok(i) = index.value.trim().parse::<u32>() else {
                return Err(ShardEnvError::Malformed {
                    given: index,
                    expected: COMPLETION_INDEX,
                });
            };
            if i >= n {
                return Err(ShardEnvError::IndexOutOfRange {
                    index,
                    count,
                    max: n - 1,
                });
            }
            Ok(Some(ChosenShard {
                shard: Shard {
                    index: i + 1,
                    count: n,
                },
                from: ShardOrigin::CompletionIndex(index, count),
            }))
        }
        (Some(index), None) => Err(ShardEnvError::IndexWithoutCount { index }),
        (None, Some((count, _))) => Err(ShardEnvError::CountWithoutIndex { count }),
        (None, None) => Ok(None),
    }
}
