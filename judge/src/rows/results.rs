//! Result rows: one JSON object per line, appended and flushed as items
//! finish (the rows of runs that finish together in one write). Reading
//! tolerates a torn last line (a process killed mid-write: no newline) and
//! refuses any other damage; merging combines shard files.

use super::sampling::Sampling;
use crate::error::{JudgeError, create_parent};
use crate::score::checks::CheckResult;
use crate::score::{JudgeRecord, Outcome, Scored};
use crate::shard::Shard;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tribunal_runtime::ErrorCode;
use tribunal_runtime::internal::approval::ApprovalRecord;
use tribunal_runtime::internal::backend::CacheCounts;
use tribunal_runtime::internal::conversation::Usage;
use tribunal_runtime::internal::report::{BackendFailure, ToolCallRecord};

/// The version of the row layout, written in every row.
pub const ROW_VERSION: u32 = 1;

/// One finished run of one item: a line of the results file.
///
/// Keyed by (`arena`, `id`, `repeat`, `config_hash`). An ERROR row holds only
/// its `error_code` — never model text — and no checks or answer.
///
/// A row repeats some of a [`RunReport`](tribunal_runtime::RunReport)'s
/// fields (usage, tool calls, turns, wall time, repair, finalize) on
/// purpose: it is a stored, flat, versioned line ([`ROW_VERSION`]) that
/// scripts and `jq` read, whose layout must not move when the runtime's
/// in-memory report grows; `ResultRow::from_run` is the one place a report
/// becomes a row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResultRow {
    /// The row layout version ([`ROW_VERSION`]).
    pub version: u32,
    /// The arena's name.
    pub arena: String,
    /// The item id.
    pub id: String,
    /// The item's 0-based position in the dataset (report order).
    pub index: usize,
    /// The 0-based repeat.
    pub repeat: u32,
    /// The config hash the row was produced under.
    pub config_hash: String,
    /// PASS, FAIL or ERROR.
    pub outcome: Outcome,
    /// The stable error code of an ERROR row (written as its snake_case
    /// spelling), else null. A code this version does not know makes the
    /// line a corrupt row.
    pub error_code: Option<ErrorCode>,
    /// On a `backend_error` row: the failure's kind, HTTP status and provider
    /// error type (never a message). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_failure: Option<BackendFailure>,
    /// On an ERROR row, what is known of why beyond its code, in
    /// tribunal's words (a mock script's final answer that breaks the
    /// schema: `/total: "500" is not of type "number"`). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_detail: Option<String>,
    /// Every check's result; empty on ERROR (checks are skipped).
    pub checks: Vec<CheckResult>,
    /// The validated answer of a PASS or FAIL row; null on ERROR.
    pub answer: Option<Value>,
    /// Token usage over the run.
    pub usage: Usage,
    /// The tool calls executed.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Wall time of the run, in milliseconds.
    pub wall_ms: f64,
    /// Model turns taken.
    pub turns: u32,
    /// Whether the one repair turn was used.
    pub repair_used: bool,
    /// Set when the answer was asked for with tools disabled before the
    /// model gave it: why the tool phase ended (a budget's code, or
    /// `tool_calls_repeated` when a turn only repeated earlier calls).
    /// Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finalized_after: Option<ErrorCode>,
    /// The backend's name (`mock` for the scripted mock backend).
    pub backend: String,
    /// The model name.
    pub model: String,
    /// How the answers were sampled (the temperature, top_p and seed sent;
    /// `{}`: the server's default), on a live or replayed run. Absent on
    /// mock rows, which are not sampled, and on rows written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Sampling>,
    /// When the row was written, in milliseconds since the Unix epoch.
    pub finished_at_ms: u64,
    /// Whether the run was replayed from a cassette (no model was asked).
    /// Written only when true.
    #[serde(default, skip_serializing_if = "is_false")]
    pub replayed: bool,
    /// Whether the backend was reached at a base URL other than the
    /// provider's own (a local or compatible server): an unpriced model
    /// there costs 0 rather than "unpriced". Written only when true.
    #[serde(default, skip_serializing_if = "is_false")]
    pub custom_endpoint: bool,
    /// Whether the model's turns went through the provider's batch API
    /// (`run --batch`): priced at the batch rate. Written only when true.
    #[serde(default, skip_serializing_if = "is_false")]
    pub batch: bool,
    /// Whether the run's commands ran with no sandbox (`[sandbox] engine =
    /// "none-trusted-container"`): every report of such rows carries the
    /// unsandboxed banner. Written only when true.
    #[serde(default, skip_serializing_if = "is_false")]
    pub unsandboxed: bool,
    /// With `--cache`: the run's requests answered from the cache (hits)
    /// and sent to the model (misses). Absent without a cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheCounts>,
    /// With `rubric` checks: the judge that graded the answer and what it
    /// used. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeRecord>,
    /// With `run --shard I/N`: the shard the row was run in, written as
    /// `"I/N"` (what `merge` checks for a missing shard). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// With `[approval]`: what approval did with each call it saw (asked,
    /// denied, changed), in order. Absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approvals: Vec<ApprovalRecord>,
    /// On a conversation item: the conversation turn by turn, how it
    /// ended, and the user simulator's tokens (apart from `usage`, the
    /// agent's). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<Box<ConversationRecord>>,
    /// The digest of the checks that scored the run (the item's checks as
    /// written, [`checks_digest`](crate::run::hash::checks_digest)): two
    /// rows of one item scored by other checks differ here. Absent in rows
    /// written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks_digest: Option<String>,
}

/// A conversation item's part of its row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationRecord {
    /// How it ended: the user's stop marker (reported, never trusted
    /// alone: the checks decide), the turn limit, or a failure.
    pub end: tribunal_runtime::DialogueEnd,
    /// The exchanges, in order.
    pub exchanges: Vec<tribunal_runtime::internal::dialogue::Exchange>,
    /// The tool calls of each agent turn, in order (how many per turn).
    pub calls_per_turn: Vec<usize>,
    /// The user simulator's tokens.
    pub user_usage: Usage,
    /// The model that played the user (its tokens are priced at it);
    /// absent for a scripted user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulator: Option<SimulatorRecord>,
}

/// The model that played a conversation's user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimulatorRecord {
    /// Its backend's name.
    pub backend: String,
    /// Its model.
    pub model: String,
    /// Whether it was reached at a base URL other than the provider's own.
    #[serde(default, skip_serializing_if = "is_false")]
    pub custom_endpoint: bool,
}

impl ConversationRecord {
    /// The record of `report`.
    pub fn of(report: tribunal_runtime::DialogueReport) -> Self {
        ConversationRecord {
            end: report.end,
            calls_per_turn: report
                .agent_turns
                .iter()
                .map(|t| t.tool_calls.len())
                .collect(),
            exchanges: report.exchanges,
            user_usage: report.user_usage,
            simulator: None,
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Where a row comes from: everything about a run that is known before it
/// starts.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RowOrigin {
    /// The arena's name.
    pub arena: String,
    /// The item id.
    pub id: String,
    /// The item's 0-based position in the dataset.
    pub index: usize,
    /// The 0-based repeat.
    pub repeat: u32,
    /// The config hash of the run.
    pub config_hash: String,
    /// The backend's name.
    pub backend: String,
    /// The model name.
    pub model: String,
    /// Whether the run is replayed from a cassette.
    pub replayed: bool,
    /// Whether the backend is reached at a custom endpoint.
    pub custom_endpoint: bool,
    /// Whether the model's turns go through a batch API.
    pub batch: bool,
    /// Whether the run's commands run with no sandbox.
    pub unsandboxed: bool,
    /// The shard the run is of.
    pub shard: Option<Shard>,
    /// How the run's answers are sampled (`None`: not sampled, mock).
    pub sampling: Option<Sampling>,
    /// The digest of the checks that score the run (the item's).
    pub checks_digest: Option<String>,
}

impl RowOrigin {
    /// The origin of repeat `repeat` of item `id` (at `index`) of `arena`
    /// under `config_hash`, on `backend` / `model`; not replayed, batched,
    /// sharded nor on a custom endpoint until said otherwise.
    pub fn new(
        arena: impl Into<String>,
        (id, index, repeat): (impl Into<String>, usize, u32),
        config_hash: impl Into<String>,
        (backend, model): (impl Into<String>, impl Into<String>),
    ) -> Self {
        RowOrigin {
            arena: arena.into(),
            id: id.into(),
            index,
            repeat,
            config_hash: config_hash.into(),
            backend: backend.into(),
            model: model.into(),
            replayed: false,
            custom_endpoint: false,
            batch: false,
            unsandboxed: false,
            shard: None,
            sampling: None,
            checks_digest: None,
        }
    }
}

impl ResultRow {
    /// The row of one finished run: its origin, the runtime's report (for
    /// usage, tool calls, turns and timings; its outcome is read from
    /// `scored`, which the checks and the judge made of it), the rubric
    /// judge's record and the cache counts. Written once, never patched.
    pub fn from_run(
        origin: RowOrigin,
        report: tribunal_runtime::RunReport,
        scored: Scored,
        judge: Option<JudgeRecord>,
        cache: Option<CacheCounts>,
    ) -> Self {
        let outcome = scored.outcome();
        let (error_code, backend_failure, error_detail, checks, answer) = match scored {
            Scored::Answered { answer, checks } => (None, None, None, checks, Some(answer)),
            Scored::Failed {
                code,
                backend_failure,
                detail,
            } => (Some(code), backend_failure, detail, Vec::new(), None),
        };
        let approvals = report.approvals;
        let mut tool_calls = report.tool_calls;
        tool_calls.shrink_to_fit();
        ResultRow {
            version: ROW_VERSION,
            arena: origin.arena,
            id: origin.id,
            index: origin.index,
            repeat: origin.repeat,
            config_hash: origin.config_hash,
            outcome,
            error_code,
            backend_failure,
            error_detail,
            checks,
            answer,
            usage: report.usage,
            tool_calls,
            wall_ms: report.wall_ms,
            turns: report.turns,
            repair_used: report.repair_used,
            finalized_after: report.finalized_after,
            backend: origin.backend,
            model: origin.model,
            sampling: origin.sampling,
            finished_at_ms: now_ms(),
            replayed: origin.replayed,
            custom_endpoint: origin.custom_endpoint,
            batch: origin.batch,
            unsandboxed: origin.unsandboxed,
            cache,
            judge,
            shard: origin.shard,
            approvals,
            conversation: None,
            checks_digest: origin.checks_digest,
        }
    }

    /// The row's key, without the arena (a file holds one arena).
    pub fn key(&self) -> (String, u32) {
        (self.id.clone(), self.repeat)
    }
}

/// The rows of a results file.
#[derive(Debug, Clone, Default)]
pub struct ReadRows {
    /// Every complete row, in file order (a key may repeat: the last wins).
    pub rows: Vec<ResultRow>,
    /// Whether a torn last line was found and discarded.
    pub torn: bool,
    /// The byte length of the complete lines (where appending resumes).
    pub good_len: u64,
}

/// Reads a results file. A last line without its newline is a torn write
/// and is discarded; any complete line that is not a row (the last one
/// included) is [`JudgeError::CorruptResults`] naming its line.
pub fn read_rows(path: &Path) -> Result<ReadRows, JudgeError> {
    let text = std::fs::read(path).map_err(|e| JudgeError::io(path, e))?;
    let mut out = ReadRows::default();
    let mut offset = 0usize;
    let mut line_no = 0usize;
    while offset < text.len() {
        line_no += 1;
        let rest = &text[offset..];
        let (line, complete, next) = match rest.iter().position(|b| *b == b'\n') {
            Some(n) => (&rest[..n], true, offset + n + 1),
            None => (rest, false, text.len()),
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            if complete {
                out.good_len = next as u64;
            }
            offset = next;
            continue;
        }
        match serde_json::from_slice::<ResultRow>(line) {
            Ok(row) if complete => {
                out.rows.push(row);
                out.good_len = next as u64;
            }
            // A whole line (its newline written) that is not a row is
            // damage, wherever it is: never silently dropped.
            Err(e) if complete => {
                return Err(JudgeError::CorruptResults {
                    path: path.to_path_buf(),
                    line: line_no,
                    message: tribunal_runtime::internal::text::one_line(&e.to_string(), 300),
                });
            }
            // The last line without its newline: a write cut short. Each row
            // is one write ending in the newline, so this is the only shape
            // a killed process leaves.
            _ => {
                out.torn = true;
                // Callers learn it from `torn` (the CLI says so once); a log line
                // at warn would say it twice.
                tracing::debug!(path = %path.display(), line = line_no, "discarding a torn last line");
            }
        }
        offset = next;
    }
    Ok(out)
}

/// The latest row per key, in report order (dataset position, then repeat).
pub fn latest(rows: impl IntoIterator<Item = ResultRow>) -> Vec<ResultRow> {
    let mut rows: Vec<Option<ResultRow>> = rows.into_iter().map(Some).collect();
    // The position of each key's last row; keys borrowed, rows not moved.
    let mut last: HashMap<(&str, u32), usize> = HashMap::with_capacity(rows.len());
    for (at, row) in rows.iter().enumerate() {
        if let Some(row) = row {
            last.insert((row.id.as_str(), row.repeat), at);
        }
    }
    let mut kept: Vec<usize> = last.into_values().collect();
    let order = |at: usize| {
        rows[at]
            .as_ref()
            .map(|r| (r.index, r.id.as_str(), r.repeat))
    };
    kept.sort_by(|&a, &b| order(a).cmp(&order(b)));
    kept.into_iter().filter_map(|at| rows[at].take()).collect()
}

/// Reads and combines results files (shards of one run): every file must
/// hold the same arena and config hash; torn last lines are discarded.
pub fn merge_files(paths: &[PathBuf]) -> Result<Vec<ResultRow>, JudgeError> {
    let mut all = Vec::new();
    let mut first: Option<(String, String)> = None;
    for path in paths {
        for row in read_rows(path)?.rows {
            match &first {
                None => first = Some((row.arena.clone(), row.config_hash.clone())),
                Some((arena, _)) if *arena != row.arena => {
                    return Err(JudgeError::ArenaMismatch {
                        path: path.clone(),
                        expected: arena.clone(),
                        found: row.arena,
                    });
                }
                Some((_, hash)) if *hash != row.config_hash => {
                    return Err(JudgeError::NotShardsOfOneRun {
                        path: path.clone(),
                        expected: hash.clone(),
                        found: row.config_hash,
                    });
                }
                Some(_) => {}
            }
            all.push(row);
        }
    }
    Ok(latest(all))
}

/// The shards of a sharded run that none of `rows` comes from: each row of
/// `run --shard I/N` says its shard, so merged rows that carry shards of N
/// but not every I from 1 to N are a merge with files left out. Empty when
/// every shard is there or no row says its shard. Rows naming different
/// counts N are checked against the largest.
///
/// A shard that held no item of the arena writes no row, so it is missing
/// here too: a run with more shards than it needs says so, and `merge
/// --allow-missing` takes it.
pub fn missing_shards(rows: &[ResultRow]) -> Vec<Shard> {
    let Some(count) = rows.iter().filter_map(|r| r.shard).map(|s| s.count).max() else {
        return Vec::new();
    };
    let present: std::collections::BTreeSet<u32> = rows
        .iter()
        .filter_map(|r| r.shard)
        .filter(|s| s.count == count)
        .map(|s| s.index)
        .collect();
    (1..=count)
        .filter(|i| !present.contains(i))
        .map(|index| Shard { index, count })
        .collect()
}

/// Appends rows to a results file, one line per row, each batch of rows in
/// one write. Safe to share between concurrent runs.
#[derive(Debug)]
pub struct ResultsWriter {
    path: PathBuf,
    file: Mutex<File>,
}

impl ResultsWriter {
    /// Creates (or empties) the file at `path`, creating its folder.
    pub fn create(path: &Path) -> Result<Self, JudgeError> {
        create_parent(path, JudgeError::io)?;
        let file = File::create(path).map_err(|e| JudgeError::io(path, e))?;
        Ok(ResultsWriter {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    /// Opens `path` for appending after its first `good_len` bytes (a torn
    /// tail beyond them is cut off first).
    pub fn append(path: &Path, good_len: u64) -> Result<Self, JudgeError> {
        create_parent(path, JudgeError::io)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| JudgeError::io(path, e))?;
        let len = file.metadata().map_err(|e| JudgeError::io(path, e))?.len();
        if len > good_len {
            file.set_len(good_len)
                .map_err(|e| JudgeError::io(path, e))?;
        }
        Ok(ResultsWriter {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    /// Writes one row as one line, in a single write, and flushes it.
    pub fn write(&self, row: &ResultRow) -> Result<(), JudgeError> {
        self.write_all(std::slice::from_ref(row))
    }

    /// Writes `rows`, one line each, in a single write, and flushes them:
    /// when this returns, every row is in the file (the operating system
    /// holds it even if the process is killed next).
    pub fn write_all(&self, rows: &[ResultRow]) -> Result<(), JudgeError> {
        let mut text = Vec::with_capacity(512 * rows.len());
        for row in rows {
            serde_json::to_writer(&mut text, row)
                .map_err(|e| JudgeError::io(&self.path, e.into()))?;
            text.push(b'\n');
        }
        let mut file = self.file.lock().map_err(|_| {
            JudgeError::io(&self.path, std::io::Error::other("writer lock poisoned"))
        })?;
        file.write_all(&text)
            .and_then(|()| file.flush())
            .map_err(|e| JudgeError::io(&self.path, e))
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Rewrites `path` to hold exactly `rows` (write a sibling file, then
/// rename over: a crash leaves either the old or the new file).
pub fn rewrite(path: &Path, rows: &[ResultRow]) -> Result<(), JudgeError> {
    let tmp = path.with_extension("jsonl.tmp");
    let mut text = Vec::new();
    for row in rows {
        serde_json::to_writer(&mut text, row).map_err(|e| JudgeError::io(&tmp, e.into()))?;
        text.push(b'\n');
    }
    std::fs::write(&tmp, &text).map_err(|e| JudgeError::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| JudgeError::io(path, e))
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Whether `rows` were all replayed from a cassette (none: no).
pub(crate) fn all_replayed(rows: &[ResultRow]) -> bool {
    !rows.is_empty() && rows.iter().all(|r| r.replayed)
}

/// An error code with what is known of a backend failure:
/// `backend_error: HTTP 401 invalid_api_key` (`unknown` without a code).
pub(crate) fn error_text(
    code: Option<ErrorCode>,
    failure: Option<&BackendFailure>,
    detail: Option<&str>,
) -> String {
    let code = code.map_or("unknown", ErrorCode::as_str);
    match (failure, detail) {
        (Some(f), _) => format!("{code}: {f}"),
        (None, Some(d)) => format!("{code}: {d}"),
        (None, None) => code.to_string(),
    }
}
