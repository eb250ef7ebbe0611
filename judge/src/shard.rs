//! [`Shard`]: `--shard I/N` runs only the items whose id hashes to shard I
//! of N — stable by id, so adding items never moves the others.

use crate::error::JudgeError;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

/// Shard `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, 1 ≤ index ≤ count.
    pub index: u32,
    /// How many shards.
    pub count: u32,
}

impl Shard {
    /// Whether the item `id` belongs to this shard.
    pub fn contains(&self, id: &str) -> bool {
        let digest = Sha256::digest(id.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        // Fields are public; a zero count or index cannot divide by zero here.
        u64::from_be_bytes(first) % u64::from(self.count.max(1))
            == u64::from(self.index.saturating_sub(1))
    }
}

impl FromStr for Shard {
    type Err = JudgeError;

    /// Parses `I/N` (1 ≤ I ≤ N).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || {
            JudgeError::Usage(format!(
                "invalid shard {s:?}: expected I/N with 1 <= I <= N"
            ))
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// Written as `"I/N"`, as the flag spells it.
impl Serialize for Shard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}
