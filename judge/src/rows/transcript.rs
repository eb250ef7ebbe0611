//! [`Transcript`]: the opt-in debugging record of one run of one item —
//! the conversation as sent and received (system prompt, messages, tool
//! calls and results, the repair turn), usage and timings — one JSON file
//! per item and repeat under a `--transcripts DIR` folder.
//!
//! Result rows stay as they are (an ERROR row holds only its code); the
//! transcript is the separate record a person reads to see *why*. Keys and
//! auth headers never appear: they are not part of the conversation.

use crate::error::JudgeError;
use crate::rows::results::ResultRow;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tribunal_runtime::internal::text::{Limit, clip};
use tribunal_runtime::{Conversation, RunReport};

/// The version of the transcript layout, written in every file.
pub const TRANSCRIPT_VERSION: u32 = 1;

/// One run of one item, as sent and received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    /// The layout version ([`TRANSCRIPT_VERSION`]).
    pub version: u32,
    /// The arena's name.
    pub arena: String,
    /// The item id.
    pub id: String,
    /// The 0-based repeat.
    pub repeat: u32,
    /// The config hash of the run.
    pub config_hash: String,
    /// The backend's name.
    pub backend: String,
    /// The model name.
    pub model: String,
    /// The conversation as it ended: system prompt and every message.
    pub conversation: Conversation,
    /// The run's record: outcome, usage, tool calls with timings, turns,
    /// wall time, whether the repair turn was used.
    pub report: RunReport,
}

impl Transcript {
    /// The transcript of `row`'s run, from the runtime's report and
    /// conversation.
    pub fn new(row: &ResultRow, report: RunReport, conversation: Conversation) -> Transcript {
        Transcript {
            version: TRANSCRIPT_VERSION,
            arena: row.arena.clone(),
            id: row.id.clone(),
            repeat: row.repeat,
            config_hash: row.config_hash.clone(),
            backend: row.backend.clone(),
            model: row.model.clone(),
            conversation,
            report,
        }
    }

    /// Writes the transcript to its file under `dir` (see
    /// [`transcript_path`]), creating the folder. Returns the path.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, JudgeError> {
        std::fs::create_dir_all(dir).map_err(|e| JudgeError::io(dir, e))?;
        let path = transcript_path(dir, &self.id, self.repeat);
        let mut text =
            serde_json::to_vec_pretty(self).map_err(|e| JudgeError::io(&path, e.into()))?;
        text.push(b'\n');
        std::fs::write(&path, text).map_err(|e| JudgeError::io(&path, e))?;
        Ok(path)
    }

    /// Reads the transcript of (`id`, `repeat`) from `dir`: `Ok(None)` when
    /// none was recorded, an error when the file exists but cannot be read
    /// or parsed.
    pub fn read(dir: &Path, id: &str, repeat: u32) -> Result<Option<Transcript>, JudgeError> {
        let path = transcript_path(dir, id, repeat);
        let text = match std::fs::read(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(JudgeError::io(&path, e)),
        };
        serde_json::from_slice(&text)
            .map(Some)
            .map_err(|e| JudgeError::io(&path, e.into()))
    }
}

/// The file of (`id`, `repeat`) under `dir`: `<id>.r<repeat>.json`, where an
/// id that is not a plain file name (characters outside `A-Za-z0-9._-`, or a
/// leading dot) is made safe and suffixed with a short hash of the real id,
/// so distinct ids never share a file.
pub fn transcript_path(dir: &Path, id: &str, repeat: u32) -> PathBuf {
    dir.join(format!("{}.r{repeat}.json", file_stem(id)))
}

fn file_stem(id: &str) -> String {
    let plain = !id.is_empty()
        && !id.starts_with('.')
        && id.len() <= 100
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if plain {
        return id.to_string();
    }
    let safe: String = clip(id, Limit::Chars(60))
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let digest = Sha256::digest(id.as_bytes());
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("{safe}~{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ids_keep_their_name() {
        let p = transcript_path(Path::new("t"), "eiffel-tower_1.x", 2);
        assert_eq!(p, Path::new("t/eiffel-tower_1.x.r2.json"));
    }

    #[test]
    fn unsafe_ids_are_made_safe_and_distinct() {
        let a = transcript_path(Path::new("t"), "../etc/passwd", 0);
        let b = transcript_path(Path::new("t"), "../etc/passwd?", 0);
        assert_ne!(a, b);
        for p in [&a, &b] {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            assert!(!name.contains('/') && !name.starts_with('.'), "{name}");
            assert_eq!(p.parent(), Some(Path::new("t")));
        }
        let hidden = transcript_path(Path::new("t"), ".hidden", 0);
        assert!(hidden.to_string_lossy().contains("_hidden~"));
    }
}
