//! Every `tribunal …` (and `cargo run … -- …`) command in the ```sh blocks
//! of README.md and docs/*.md parses as the program parses it, renamed
//! spellings refused; a command that needs a live model is marked `# live`
//! on its line (it is only parsed, never run, here).

use super::Command;
use super::shape::{Refusal, try_parse};
use std::path::{Path, PathBuf};

/// A command of the docs: where it is, its words, whether it is marked `# live`.
#[derive(Debug)]
struct DocCommand {
    at: String,
    words: Vec<String>,
    live: bool,
}

/// README.md and every docs/*.md file.
fn doc_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    docs.retain(|p| p.extension().is_some_and(|e| e == "md"));
    docs.sort();
    files.extend(docs);
    files
}

/// The lines of the ```sh blocks of `text`, continuation lines joined, with
/// their line numbers.
fn sh_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((i + 1, String::new()));
        joined.push_str(line.trim());
        match joined.strip_suffix('\\') {
            Some(open) => pending = Some((start, format!("{open} "))),
            None => out.push((start, joined)),
        }
    }
    out
}

/// `line` split into shell words up to its first comment, pipe, redirect
/// or `;`/`&&`; and the comment.
fn shell_words(line: &str) -> (Vec<String>, String) {
    let (mut words, mut word, mut quote, mut in_word) = (Vec::new(), String::new(), None, false);
    for (at, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, '#') if !in_word => return (words, line[at + 1..].trim().to_string()),
            (None, '|' | '>' | ';' | '&') => break,
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    (words, String::new())
}

/// The program's arguments in `words` (after `VAR=value` prefixes), when
/// they run the `tribunal` program: `tribunal …` or `cargo run [--release]
/// -- …` (not an example's or another package's `cargo run`).
fn tribunal_args(words: &[String]) -> Option<Vec<String>> {
    let start = words
        .iter()
        .position(|w| !w.contains('=') || w.starts_with('-'))?;
    let words = &words[start..];
    match words.first().map(String::as_str) {
        Some("tribunal") => Some(words[1..].to_vec()),
        Some("cargo") if words.get(1).is_some_and(|w| w == "run") => {
            let dashes = words.iter().position(|w| w == "--")?;
            let own = &words[2..dashes];
            let other = own
                .iter()
                .any(|w| ["--example", "-p", "--package", "--bin"].contains(&w.as_str()));
            (!other).then(|| words[dashes + 1..].to_vec())
        }
        _ => None,
    }
}

fn doc_commands() -> Vec<DocCommand> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut commands = Vec::new();
    for file in doc_files() {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let name = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (line, text) in sh_lines(&text) {
            let (words, comment) = shell_words(&text);
            if let Some(words) = tribunal_args(&words) {
                commands.push(DocCommand {
                    at: format!("{name}:{line}"),
                    words,
                    live: comment.starts_with("live"),
                });
            }
        }
    }
    commands
}

/// Whether the parsed command asks a live model (no cassette to replay).
fn needs_live_model(command: &Command) -> bool {
    match command {
        Command::Run(args) => args.needs_live_model(),
        Command::Judge(super::judge::JudgeCommand::Calibrate(args)) => args.needs_live_model(),
        Command::Judge(super::judge::JudgeCommand::Run(args)) => args.needs_live_model(),
        Command::Review(args) => args.needs_live_model(),
        _ => false,
    }
}

#[test]
fn every_command_in_the_docs_parses_and_live_ones_say_so() {
    let commands = doc_commands();
    assert!(commands.len() > 20, "too few commands found: {commands:?}");
    let mut wrong = Vec::new();
    for c in &commands {
        let argv = std::iter::once("tribunal".to_string()).chain(c.words.iter().cloned());
        match try_parse(argv) {
            Ok(cli) => {
                let live = needs_live_model(&cli.command);
                if live && !c.live {
                    wrong.push(format!("{}: needs a live model: mark it `# live`", c.at));
                }
                if c.live && !live {
                    wrong.push(format!(
                        "{}: marked `# live` but runs without a model",
                        c.at
                    ));
                }
            }
            Err(Refusal::Renamed { old, new }) => {
                wrong.push(format!("{}: --{old} is now --{new}", c.at));
            }
            Err(Refusal::Clap(e)) => {
                let first = e.to_string().lines().next().unwrap_or("").to_string();
                wrong.push(format!("{}: tribunal {}: {first}", c.at, c.words.join(" ")));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn shell_words_reads_quotes_comments_and_stops_at_a_pipe() {
    let (words, comment) =
        shell_words(r#"X=1 tribunal run a --extra-body '{"top_k": 20}' --note "a b" # live: key"#);
    assert_eq!(
        words,
        [
            "X=1",
            "tribunal",
            "run",
            "a",
            "--extra-body",
            r#"{"top_k": 20}"#,
            "--note",
            "a b"
        ]
    );
    assert_eq!(comment, "live: key");
    let (words, _) =
        shell_words("tribunal compare a b --report markdown >> \"$GITHUB_STEP_SUMMARY\"");
    assert_eq!(
        words,
        ["tribunal", "compare", "a", "b", "--report", "markdown"]
    );
    let args = tribunal_args(&["cargo", "run", "--release", "--", "run", "x"].map(String::from));
    assert_eq!(args, Some(vec!["run".to_string(), "x".to_string()]));
    let example = ["cargo", "run", "--example", "embed", "--", "--live", "m"].map(String::from);
    assert_eq!(tribunal_args(&example), None);
}
