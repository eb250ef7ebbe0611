//! The batch journal: a JSON Lines file beside the results file
//! (`<results>.batches`) that makes a batch run resumable without paying
//! twice.
//!
//! Two kinds of line, each one write ending in a newline and synced to disk
//! before the runner goes on:
//!
//! - `{"submitted": {"round", "batch", "requests": [[custom_id, key], …]}}`,
//!   written as soon as the provider has created the batch and before the
//!   first poll: a killed process's successor polls that batch instead of
//!   submitting its requests again;
//! - `{"answered": {"id", "key", "answer"}}` or `{"failed": {"id", "key",
//!   "error"}}`, written for each request of a batch once it has ended and
//!   before its run sees the answer: the successor replays the turns its
//!   unfinished runs already had, without asking again.
//!
//! `key` is the digest of the request body: an entry is used only for the
//! same request (a run whose tools answered differently the second time
//! asks anew). A torn last line (a process killed mid-write) is cut off.
//! The window between the provider creating a batch and its `submitted`
//! line reaching the disk is the one place a kill can still cost a second
//! submission.

use crate::error::JudgeError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use tribunal_runtime::internal::backend::BackendError;
use tribunal_runtime::internal::backend::RecordedError;

/// The journal of `results`: the same path with `.batches` appended.
pub fn journal_path(results: &Path) -> PathBuf {
    let mut name = results.as_os_str().to_owned();
    name.push(".batches");
    PathBuf::from(name)
}

/// One line of the journal.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    Submitted {
        round: u32,
        batch: String,
        requests: Vec<(String, String)>,
    },
    Answered {
        id: String,
        key: String,
        answer: Value,
    },
    Failed {
        id: String,
        key: String,
        error: RecordedError,
    },
}

/// The journal of one batch run: what earlier processes left (when
/// resuming) and the file new lines go to.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    /// Rounds begun so far (the next is numbered one more).
    rounds: u32,
    /// Requests a batch has answered: id → (key, answer or error).
    answered: HashMap<String, (String, Result<Value, BackendError>)>,
    /// Requests submitted in a batch that has not been read: id → (key, batch).
    in_flight: HashMap<String, (String, String)>,
}

impl Journal {
    /// A new, empty journal at `path` (an existing one is emptied).
    pub fn create(path: &Path) -> Result<Journal, JudgeError> {
        let file = File::create(path).map_err(|e| JudgeError::io(path, e))?;
        Ok(Journal {
            path: path.to_path_buf(),
            file,
            rounds: 0,
            answered: HashMap::new(),
            in_flight: HashMap::new(),
        })
    }

    /// The journal at `path` as an earlier process left it (a torn last
    /// line cut off), opened to go on; a new one when there is none.
    /// Errors: the file cannot be read, or a whole line is not a journal
    /// line.
    pub fn resume(path: &Path) -> Result<Journal, JudgeError> {
        if !path.exists() {
            return Journal::create(path);
        }
        let text = std::fs::read(path).map_err(|e| JudgeError::io(path, e))?;
        let mut journal = Journal {
            path: path.to_path_buf(),
            file: OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| JudgeError::io(path, e))?,
            rounds: 0,
            answered: HashMap::new(),
            in_flight: HashMap::new(),
        };
        let mut good_len = 0;
        for (n, line) in text.split_inclusive(|b| *b == b'\n').enumerate() {
            if !line.ends_with(b"\n") {
                tracing::debug!(path = %path.display(), line = n + 1, "discarding a torn last journal line");
                break;
            }
            good_len += line.len();
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let parsed: Line = serde_json::from_slice(line).map_err(|e| {
                JudgeError::Usage(format!(
                    "{}:{}: not a batch journal line: {}",
                    path.display(),
                    n + 1,
                    tribunal_runtime::internal::text::one_line(&e.to_string(), 200)
                ))
            })?;
            journal.replay(parsed);
        }
        journal
            .file
            .set_len(good_len as u64)
            .and_then(|()| {
                use std::io::Seek;
                journal.file.seek(std::io::SeekFrom::End(0)).map(|_| ())
            })
            .map_err(|e| JudgeError::io(path, e))?;
        Ok(journal)
    }

    fn replay(&mut self, line: Line) {
        match line {
            Line::Submitted {
                round,
                batch,
                requests,
            } => {
                self.rounds = self.rounds.max(round);
                for (id, key) in requests {
                    self.in_flight.insert(id, (key, batch.clone()));
                }
            }
            Line::Answered { id, key, answer } => {
                self.in_flight.remove(&id);
                self.answered.insert(id, (key, Ok(answer)));
            }
            Line::Failed { id, key, error } => {
                self.in_flight.remove(&id);
                self.answered.insert(id, (key, Err(error.into())));
            }
        }
    }

    /// The number of the next round.
    pub fn next_round(&mut self) -> u32 {
        self.rounds += 1;
        self.rounds
    }

    /// The answer an earlier process had for request `id` with body digest
    /// `key`, taken out of the journal's memory (a run asks each once).
    pub fn take_answer(&mut self, id: &str, key: &str) -> Option<Result<Value, BackendError>> {
        match self.answered.get(id) {
            Some((k, _)) if k == key => self.answered.remove(id).map(|(_, a)| a),
            _ => None,
        }
    }

    /// The batch an earlier process submitted request `id` (same `key`) in
    /// and never read.
    pub fn in_flight(&self, id: &str, key: &str) -> Option<&str> {
        match self.in_flight.get(id) {
            Some((k, batch)) if k == key => Some(batch),
            _ => None,
        }
    }

    /// Records that batch `batch` of round `round` holds `requests` (id, key).
    pub fn submitted(
        &mut self,
        round: u32,
        batch: &str,
        requests: Vec<(String, String)>,
    ) -> Result<(), JudgeError> {
        let line = Line::Submitted {
            round,
            batch: batch.to_string(),
            requests,
        };
        self.write(&[line])
    }

    /// Records the outcomes of requests (id, key, answer), in one write.
    pub fn answered<'a>(
        &mut self,
        outcomes: impl IntoIterator<Item = (&'a str, &'a str, &'a Result<Value, BackendError>)>,
    ) -> Result<(), JudgeError> {
        let lines: Vec<Line> = outcomes
            .into_iter()
            .map(|(id, key, outcome)| match outcome {
                Ok(answer) => Line::Answered {
                    id: id.to_string(),
                    key: key.to_string(),
                    answer: answer.clone(),
                },
                Err(e) => Line::Failed {
                    id: id.to_string(),
                    key: key.to_string(),
                    error: e.into(),
                },
            })
            .collect();
        self.write(&lines)
    }

    /// Appends `lines` in one write and syncs them to disk.
    fn write(&mut self, lines: &[Line]) -> Result<(), JudgeError> {
        if lines.is_empty() {
            return Ok(());
        }
        let mut buf = Vec::new();
        for line in lines {
            serde_json::to_writer(&mut buf, line)
                .map_err(|e| JudgeError::io(&self.path, std::io::Error::other(e)))?;
            buf.push(b'\n');
        }
        self.file
            .write_all(&buf)
            .and_then(|()| self.file.sync_data())
            .map_err(|e| JudgeError::io(&self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tribunal_runtime::internal::backend::BackendErrorKind;

    #[test]
    fn a_resumed_journal_knows_batches_in_flight_and_answers_and_cuts_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = journal_path(&dir.path().join("r.jsonl"));
        assert!(path.ends_with("r.jsonl.batches"));
        let mut j = Journal::create(&path).unwrap();
        assert_eq!(j.next_round(), 1);
        let ids = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect::<Vec<_>>()
        };
        j.submitted(1, "batch_1", ids(&[("a", "ka"), ("b", "kb"), ("c", "kc")]))
            .unwrap();
        let expired = Err(tribunal_runtime::internal::backend::batch::request_error(
            "openai-chat",
            "batch_expired",
            "late",
        ));
        j.answered([("a", "ka", &Ok(json!({"x": 1}))), ("b", "kb", &expired)])
            .unwrap();
        drop(j);
        // A process killed mid-write leaves half a line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"answered":{"id":"c","#).unwrap();
        drop(f);

        let mut j = Journal::resume(&path).unwrap();
        assert_eq!(j.next_round(), 2, "rounds go on from the journal");
        assert_eq!(j.in_flight("c", "kc"), Some("batch_1"));
        assert_eq!(j.in_flight("c", "other body"), None);
        assert_eq!(j.in_flight("a", "ka"), None, "answered is not in flight");
        assert_eq!(j.take_answer("a", "other body"), None);
        assert_eq!(j.take_answer("a", "ka"), Some(Ok(json!({"x": 1}))));
        assert_eq!(j.take_answer("a", "ka"), None, "taken once");
        let Some(Err(e)) = j.take_answer("b", "kb") else {
            panic!("b failed")
        };
        assert_eq!(e.kind, BackendErrorKind::Batch);
        assert_eq!(e.provider_type.as_deref(), Some("batch_expired"));
        // The torn line is gone and new lines follow whole ones.
        j.answered([("c", "kc", &Ok(json!(3)))]).unwrap();
        drop(j);
        let mut j = Journal::resume(&path).unwrap();
        assert_eq!(j.take_answer("c", "kc"), Some(Ok(json!(3))));
    }

    /// A request the model refused for a sampling field says so after a
    /// resume too, so the resumed run sends it again without the field.
    #[test]
    fn a_refused_sampling_field_survives_the_journal() {
        use tribunal_runtime::internal::backend::SamplingField;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let mut j = Journal::create(&path).unwrap();
        let mut recorded = RecordedError::from(&BackendError::new(
            BackendErrorKind::Http,
            "unsupported temperature",
        ));
        recorded.refused_sampling = Some(SamplingField::Temperature);
        j.answered([("a", "ka", &Err(BackendError::from(recorded)))])
            .unwrap();
        drop(j);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(r#""refused_sampling":"temperature""#),
            "{text}"
        );
        let mut j = Journal::resume(&path).unwrap();
        let Some(Err(e)) = j.take_answer("a", "ka") else {
            panic!("a failed")
        };
        assert_eq!(
            RecordedError::from(&e).refused_sampling,
            Some(SamplingField::Temperature)
        );
    }

    #[test]
    fn a_damaged_whole_line_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        std::fs::write(&path, "{\"nonsense\": 1}\n").unwrap();
        let e = Journal::resume(&path).unwrap_err().to_string();
        assert!(e.contains(":1: not a batch journal line"), "{e}");
    }
}
