//! `tribunal github …`: the GitHub REST calls of the pull-request gate
//! (`action/action.yml`), so the action stays a thin script and these are
//! tested in Rust against a stand-in server.
//!
//! - `github comment --pr N --marker KEY --body-file FILE`: one comment per
//!   pull request and KEY, edited in place on every push (found by its
//!   first line, a hidden `<!-- tribunal-gate: KEY -->`, in a comment of the
//!   token's own account, GraphQL's `viewer`), never a new one per push.
//! - `github find-baseline --artifact NAME --branch B`: the newest unexpired
//!   artifact NAME uploaded by a `push`, `schedule` or `workflow_dispatch`
//!   run of this repository's own code on branch B (never a fork's run),
//!   printed as `key=value` lines for `$GITHUB_OUTPUT` (`found=false` when
//!   there is none). A fork's artifacts are dropped before the runs are
//!   looked up, so they take none of the lookups.
//! - `github check-baseline --results FILE --repeats K [--arena DIR]
//!   [--covers NEW]`: whether a results file may be a baseline (no torn
//!   line, one run, no provider failure, every item run it was asked for,
//!   every run of the new file it is compared with); no GitHub call
//!   (`baseline.rs`).
//!
//! The repository is `--repo` or `GITHUB_REPOSITORY`; the API root
//! `GITHUB_API_URL` (GitHub's runners set it; default
//! `https://api.github.com`) and `GITHUB_GRAPHQL_URL` (default: the API
//! root's `/graphql`); the token `GITHUB_TOKEN`, which no output, log or
//! error message contains.

mod api;
mod baseline;

use api::{DEFAULT_API_URL, GitHub, Posted, fit_body};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum GitHubCommand {
    /// Create or update the gate's one comment on a pull request.
    Comment(CommentArgs),
    /// Find the newest baseline artifact of a branch (key=value lines).
    FindBaseline(FindBaselineArgs),
    /// Whether a results file may be a baseline: exit 0 fit, 1 not (each
    /// reason said), 2 unreadable.
    CheckBaseline(baseline::CheckBaselineArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct RepoArgs {
    /// The repository, owner/name. Default: `GITHUB_REPOSITORY`.
    #[arg(long, value_name = "OWNER/NAME")]
    repo: Option<String>,
}

#[derive(Debug, clap::Args)]
pub(crate) struct CommentArgs {
    #[command(flatten)]
    repo: RepoArgs,
    /// The pull request's number.
    #[arg(allow_negative_numbers = true, long, value_name = "N")]
    pr: u64,
    /// What tells this comment from others (one comment per KEY): letters,
    /// digits, `-`, `_`, `.` and `/`.
    #[arg(long, value_name = "KEY", value_parser = parse_marker)]
    marker: String,
    /// The comment's Markdown body (several are joined in order).
    #[arg(long = "body-file", value_name = "FILE", required = true)]
    body_files: Vec<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub(crate) struct FindBaselineArgs {
    #[command(flatten)]
    repo: RepoArgs,
    /// The artifact's name: letters, digits, `-`, `_` and `.`.
    #[arg(long, value_name = "NAME", value_parser = parse_artifact)]
    artifact: String,
    /// The branch whose runs uploaded it.
    #[arg(long, value_name = "BRANCH")]
    branch: String,
}

/// Whether `s` is a non-empty run of letters, digits and `extra` characters.
fn plain(s: &str, extra: &[char]) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
}

fn parse_marker(s: &str) -> Result<String, String> {
    match plain(s, &['-', '_', '.', '/']) {
        true => Ok(s.to_string()),
        false => Err(format!(
            "{s:?} is not a marker key: use letters, digits, '-', '_', '.' and '/'"
        )),
    }
}

fn parse_artifact(s: &str) -> Result<String, String> {
    match plain(s, &['-', '_', '.']) {
        true => Ok(s.to_string()),
        false => Err(format!(
            "{s:?} is not an artifact name the gate uses: letters, digits, '-', '_' and '.'"
        )),
    }
}

/// The hidden line a gate comment starts with.
fn marker_line(key: &str) -> String {
    format!("<!-- tribunal-gate: {key} -->")
}

/// The GraphQL endpoint: `GITHUB_GRAPHQL_URL` (GitHub's runners set it),
/// else the API root's `/graphql`.
fn graphql_url() -> String {
    std::env::var("GITHUB_GRAPHQL_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| format!("{}/graphql", api_url().trim_end_matches('/')))
}

fn api_url() -> String {
    std::env::var("GITHUB_API_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| DEFAULT_API_URL.to_string())
}

fn client(repo: &RepoArgs) -> anyhow::Result<GitHub> {
    let repo = match &repo.repo {
        Some(r) => r.clone(),
        None => std::env::var("GITHUB_REPOSITORY").map_err(|_| {
            anyhow::anyhow!(
                "github: no repository: pass --repo OWNER/NAME or set GITHUB_REPOSITORY"
            )
        })?,
    };
    GitHub::new(&api_url(), &repo, std::env::var("GITHUB_TOKEN").ok())
}

pub(crate) fn run(command: GitHubCommand) -> anyhow::Result<ExitCode> {
    match command {
        GitHubCommand::CheckBaseline(args) => baseline::run(args),
        GitHubCommand::Comment(args) => {
            let runtime = super::tokio_runtime()?;
            let github = client(&args.repo)?;
            let mut body = marker_line(&args.marker);
            body.push('\n');
            for path in &args.body_files {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
                body.push('\n');
                body.push_str(&text);
            }
            let (posted, url) = runtime.block_on(async {
                let login = github.own_login(&graphql_url()).await?;
                github
                    .upsert_comment(
                        args.pr,
                        &marker_line(&args.marker),
                        &login,
                        &fit_body(&body),
                    )
                    .await
            })?;
            let url = url.map(|u| format!(": {u}")).unwrap_or_default();
            match posted {
                Posted::Created(id) => {
                    eprintln!("github: created comment {id} on #{}{url}", args.pr)
                }
                Posted::Updated(id) => {
                    eprintln!("github: updated comment {id} on #{}{url}", args.pr)
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        GitHubCommand::FindBaseline(args) => {
            let runtime = super::tokio_runtime()?;
            let github = client(&args.repo)?;
            match runtime.block_on(github.latest_artifact(&args.artifact, &args.branch))? {
                Some(a) => {
                    let run = a.workflow_run.as_ref();
                    println!("found=true");
                    println!("artifact-id={}", a.id);
                    println!("run-id={}", run.map_or(0, |r| r.id));
                    println!(
                        "head-sha={}",
                        run.and_then(|r| r.head_sha.as_deref()).unwrap_or("")
                    );
                    eprintln!(
                        "github: baseline {:?} of {:?} from run {}",
                        args.artifact,
                        args.branch,
                        run.map_or(0, |r| r.id)
                    );
                }
                None => {
                    println!("found=false");
                    eprintln!(
                        "github: no unexpired artifact {:?} from a run on {:?}",
                        args.artifact, args.branch
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
