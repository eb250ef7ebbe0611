//! [`Replay`]: a [`Backend`] that serves a cassette written by
//! [`Recording`](super::record::Recording), for re-running a recorded live run
//! without keys or network.
//!
//! Requests are matched by their normalised key
//! ([`super::record::request_key`]), not by position, so
//! concurrent runs replay in any order. A request recorded several times is
//! answered in recording order. A request the cassette has no answer for fails
//! with a `Script` error naming the cassette. A request recorded as `cut` (the
//! recorded run's deadline dropped it) fails at once with a
//! [`DeadlineCut`](BackendErrorKind::DeadlineCut) error, which the driver
//! turns into the run's `deadline_exceeded`, without waiting for a deadline.

use super::record::{CASSETTE_VERSION, CassetteLine, RecordedOutcome, request_key};
use super::{Backend, BackendError, BackendErrorKind, BackendInfo, ModelRequest};
use crate::conversation::ModelTurn;
use crate::output::OutputPlan;
use futures::future::BoxFuture;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Serves recorded answers.
#[derive(Debug)]
pub struct Replay {
    path: PathBuf,
    name: String,
    model: String,
    plan: OutputPlan,
    answers: Mutex<HashMap<String, VecDeque<RecordedOutcome>>>,
}

fn bad(path: &Path, message: String) -> BackendError {
    BackendError::new(
        BackendErrorKind::Config,
        format!("cassette {}: {message}", path.display()),
    )
}

impl Replay {
    /// Loads the cassette at `path`. Errors: unreadable file, a missing or
    /// newer-version header, or a line that is not a cassette line.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, BackendError> {
        let path = path.as_ref();
        let text =
            std::fs::read_to_string(path).map_err(|e| bad(path, format!("cannot read it: {e}")))?;
        Replay::from_text(path, &text)
    }

    /// Parses cassette `text`; `path` only names it in messages.
    pub fn from_text(path: impl AsRef<Path>, text: &str) -> Result<Self, BackendError> {
        let path = path.as_ref();
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let header = lines
            .next()
            .ok_or_else(|| bad(path, "it is empty".to_string()))?;
        let (name, model, plan) = match serde_json::from_str::<CassetteLine>(header.1) {
            Ok(CassetteLine::Header {
                version,
                backend,
                model,
                schema_target,
                strategy,
                schema_on_tool_turns,
                read_text_calls,
            }) => {
                if version > CASSETTE_VERSION {
                    return Err(bad(
                        path,
                        format!("version {version} is newer than {CASSETTE_VERSION}"),
                    ));
                }
                let plan = OutputPlan {
                    strategy,
                    target: schema_target,
                    schema_on_tool_turns,
                    read_text_calls,
                };
                (backend, model, plan)
            }
            _ => return Err(bad(path, "line 1 is not a cassette header".to_string())),
        };
        let mut answers: HashMap<String, VecDeque<RecordedOutcome>> = HashMap::new();
        for (index, line) in lines {
            match serde_json::from_str::<CassetteLine>(line) {
                Ok(CassetteLine::Exchange { key, outcome, .. }) => {
                    answers.entry(key).or_default().push_back(outcome);
                }
                Ok(CassetteLine::Header { .. }) => {
                    return Err(bad(path, format!("line {} is a second header", index + 1)));
                }
                Err(e) => return Err(bad(path, format!("line {}: {e}", index + 1))),
            }
        }
        Ok(Replay {
            path: path.to_path_buf(),
            name,
            model,
            plan,
            answers: Mutex::new(answers),
        })
    }

    /// The recorded backend's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The recorded model.
    pub fn model(&self) -> &str {
        &self.model
    }

    #[doc(hidden)] // for tribunal's own crates; no promise
    /// Every recorded answer by request key, in recording order.
    pub fn into_answers(self) -> impl Iterator<Item = (String, RecordedOutcome)> {
        self.answers
            .into_inner()
            .unwrap_or_default()
            .into_iter()
            .flat_map(|(key, queue)| queue.into_iter().map(move |o| (key.clone(), o)))
    }

    /// How many recorded answers were never served.
    pub fn remaining(&self) -> usize {
        self.answers
            .lock()
            .map(|a| a.values().map(VecDeque::len).sum())
            .unwrap_or(0)
    }
}

impl Backend for Replay {
    fn info(&self) -> BackendInfo<'_> {
        BackendInfo {
            name: &self.name,
            model: &self.model,
            plan: self.plan,
        }
    }

    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
        Box::pin(async move {
            let key = request_key(request);
            let served = match self.answers.lock() {
                Ok(mut answers) => answers.get_mut(&key).map(|q| q.pop_front()),
                Err(_) => None,
            };
            match served {
                Some(Some(RecordedOutcome::Turn(turn))) => Ok(turn),
                Some(Some(RecordedOutcome::Error(e))) => Err(e.into()),
                Some(Some(RecordedOutcome::Cut)) => Err(BackendError::new(
                    BackendErrorKind::DeadlineCut,
                    format!(
                        "cassette {}: the recorded run's deadline cut this request (key {})",
                        self.path.display(),
                        key.get(..12).unwrap_or(&key)
                    ),
                )),
                Some(None) => Err(BackendError::new(
                    BackendErrorKind::Script,
                    format!(
                        "cassette {}: every recorded answer to this request (key {}) was already served",
                        self.path.display(),
                        key.get(..12).unwrap_or(&key)
                    ),
                )),
                None => Err(BackendError::new(
                    BackendErrorKind::Script,
                    format!(
                        "cassette {} has no answer for this request (key {}, {} message(s), {} tool(s)); \
                         the run differs from the recorded one — record it again",
                        self.path.display(),
                        key.get(..12).unwrap_or(&key),
                        request.conversation.messages.len(),
                        request.tools.len()
                    ),
                )),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"type":"header","version":1,"backend":"anthropic","model":"m","schema_target":"anthropic"}"#;

    fn error_of(text: &str) -> String {
        match Replay::from_text("c.jsonl", text) {
            Ok(_) => panic!("accepted: {text:.80}"),
            Err(e) => {
                assert_eq!(e.kind, BackendErrorKind::Config);
                e.message
            }
        }
    }

    #[test]
    fn hostile_cassettes_are_config_errors_naming_the_line() {
        assert!(error_of("").contains("it is empty"));
        assert!(error_of("garbage\n").contains("line 1 is not a cassette header"));
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(error_of(&deep).contains("line 1 is not a cassette header"));
        assert!(error_of(&format!("{HEADER}\n{deep}\n")).contains("line 2:"));
        assert!(error_of(&format!("{HEADER}\n\n{HEADER}\n")).contains("line 3 is a second header"));
        let newer = HEADER.replace(r#""version":1"#, r#""version":3"#);
        assert!(error_of(&newer).contains("newer"));
        // A header alone is an empty cassette, not an error.
        let replay = Replay::from_text("c.jsonl", HEADER).unwrap();
        assert_eq!(replay.remaining(), 0);
    }
}
