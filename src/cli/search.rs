//! `tribunal search CORPUS.json "QUERY" [-k N]`: runs the same BM25 ranking
//! the `search` tool uses and prints the hits as one JSON array
//! `[{"id", "title", "text", "score"}]`, best first, so a user can see why an
//! agent did or did not find a passage. Exit 0 (also with no hits), 2 when
//! the corpus cannot be read.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use tribunal::tools::Corpus;

#[derive(Debug, clap::Args)]
pub(crate) struct SearchArgs {
    /// The corpus: a JSON array of {"id"?, "title", "text"} passages.
    corpus: PathBuf,
    /// The query, as an agent would pass it to the `search` tool.
    query: String,
    /// How many passages to print.
    #[arg(allow_negative_numbers = true, short, default_value_t = tribunal::tools::DEFAULT_K)]
    k: usize,
}

pub(crate) fn run(args: SearchArgs) -> anyhow::Result<ExitCode> {
    // CorpusError's Display is one line naming the file (and line:column).
    let corpus = Corpus::load(&args.corpus)?;
    let hits = corpus.search(&args.query, args.k);
    let mut json = serde_json::to_string_pretty(&hits)?;
    json.push('\n');
    // `tribunal search … | head`: a closed pipe ends quietly (closed_pipe).
    std::io::stdout().lock().write_all(json.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
