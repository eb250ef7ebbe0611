//! A small client of the GitHub REST API: the calls the pull-request gate
//! makes (list, create and update an issue comment; list a repository's
//! artifacts). The token is sent in the `Authorization` header only; no
//! message this module makes contains it.

use anyhow::{Context, bail};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde::Deserialize;
use serde_json::{Value, json};

/// The API root when `GITHUB_API_URL` is not set.
pub(crate) const DEFAULT_API_URL: &str = "https://api.github.com";

/// The comments asked for per page (GitHub's maximum).
const PER_PAGE: usize = 100;

/// At most this many pages of comments are read (10,000 comments).
const MAX_PAGES: usize = 100;

/// GitHub refuses a comment body longer than this many characters.
pub(crate) const MAX_BODY_CHARS: usize = 65_536;

/// An authenticated client for one repository.
pub(crate) struct GitHub {
    http: reqwest::Client,
    api: String,
    repo: String,
    token: Option<String>,
}

/// An issue (or pull-request) comment, as far as the gate reads it.
#[derive(Debug, Deserialize)]
pub(crate) struct IssueComment {
    pub(crate) id: u64,
    #[serde(default)]
    pub(crate) body: Option<String>,
    #[serde(default)]
    pub(crate) html_url: Option<String>,
}

/// The run that uploaded an artifact.
#[derive(Debug, Deserialize)]
pub(crate) struct WorkflowRun {
    pub(crate) id: u64,
    #[serde(default)]
    pub(crate) head_branch: Option<String>,
    #[serde(default)]
    pub(crate) head_sha: Option<String>,
}

/// A workflow artifact, as far as the gate reads it.
#[derive(Debug, Deserialize)]
pub(crate) struct Artifact {
    pub(crate) id: u64,
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) expired: bool,
    #[serde(default)]
    pub(crate) created_at: Option<String>,
    #[serde(default)]
    pub(crate) workflow_run: Option<WorkflowRun>,
}

#[derive(Debug, Deserialize)]
struct ArtifactList {
    #[serde(default)]
    artifacts: Vec<Artifact>,
}

/// What happened to the gate's comment.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Posted {
    /// A new comment was made.
    Created(u64),
    /// The comment with the marker was edited in place.
    Updated(u64),
}

impl GitHub {
    /// A client of `repo` (`owner/name`) at the API root `api`.
    pub(crate) fn new(api: &str, repo: &str, token: Option<String>) -> anyhow::Result<GitHub> {
        if repo.split('/').count() != 2 || repo.split('/').any(str::is_empty) {
            bail!("{repo:?} is not a repository (owner/name)");
        }
        let http = reqwest::Client::builder()
            .user_agent(concat!("tribunal/", env!("CARGO_PKG_VERSION")))
            .timeout(std::time::Duration::from_secs(60))
            .build()
            .context("cannot build an HTTP client")?;
        Ok(GitHub {
            http,
            api: api.trim_end_matches('/').to_string(),
            repo: repo.to_string(),
            token: token.filter(|t| !t.is_empty()),
        })
    }

    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let url = format!("{}/repos/{}/{path}", self.api, self.repo);
        let builder = self
            .http
            .request(method, url)
            .header("Accept", "application/vnd.github+json")
            .header("X-GitHub-Api-Version", "2022-11-28");
        match &self.token {
            Some(token) => builder.bearer_auth(token),
            None => builder,
        }
    }

    /// Sends `request`, and reads a 2xx answer as JSON; any other status is
    /// an error naming the call, the status and GitHub's message.
    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        request: RequestBuilder,
    ) -> anyhow::Result<T> {
        let answer = request
            .send()
            .await
            .map_err(|e| anyhow::anyhow!("{what}: the request failed: {}", e))?;
        let status = answer.status();
        let text = answer
            .text()
            .await
            .map_err(|e| anyhow::anyhow!("{what}: reading the answer failed: {}", e))?;
        if !status.is_success() {
            let why = explain(status, &text);
            // A server that echoes the token back never gets it printed.
            let why = match &self.token {
                Some(token) if token.len() >= 8 => why.replace(token.as_str(), "[redacted]"),
                _ => why,
            };
            bail!("{what}: HTTP {}{why}", status.as_u16());
        }
        serde_json::from_str(&text)
            .with_context(|| format!("{what}: the answer is not the JSON GitHub sends"))
    }

    /// Every comment of issue or pull request `number`, oldest first.
    pub(crate) async fn comments(&self, number: u64) -> anyhow::Result<Vec<IssueComment>> {
        let mut all = Vec::new();
        for page in 1..=MAX_PAGES {
            let request = self.request(
                Method::GET,
                &format!("issues/{number}/comments?per_page={PER_PAGE}&page={page}"),
            );
            let batch: Vec<IssueComment> = self
                .call(&format!("listing the comments of #{number}"), request)
                .await?;
            let last = batch.len() < PER_PAGE;
            all.extend(batch);
            if last {
                break;
            }
        }
        Ok(all)
    }

    /// Makes the one comment of `number` that carries `marker` say `body`:
    /// edits the first comment holding the marker, or creates one.
    pub(crate) async fn upsert_comment(
        &self,
        number: u64,
        marker: &str,
        body: &str,
    ) -> anyhow::Result<(Posted, Option<String>)> {
        let existing = self
            .comments(number)
            .await?
            .into_iter()
            .find(|c| c.body.as_deref().is_some_and(|b| b.contains(marker)));
        let payload = json!({ "body": body });
        let (posted, comment): (Posted, IssueComment) = match existing {
            Some(c) => {
                let request = self
                    .request(Method::PATCH, &format!("issues/comments/{}", c.id))
                    .json(&payload);
                let updated = self
                    .call(&format!("updating comment {}", c.id), request)
                    .await?;
                (Posted::Updated(c.id), updated)
            }
            None => {
                let request = self
                    .request(Method::POST, &format!("issues/{number}/comments"))
                    .json(&payload);
                let created: IssueComment = self
                    .call(&format!("commenting on #{number}"), request)
                    .await?;
                (Posted::Created(created.id), created)
            }
        };
        Ok((posted, comment.html_url))
    }

    /// The newest unexpired artifact called `name` uploaded by a run on
    /// `branch`.
    pub(crate) async fn latest_artifact(
        &self,
        name: &str,
        branch: &str,
    ) -> anyhow::Result<Option<Artifact>> {
        // `name` is letters, digits, `-`, `_` and `.` (the CLI checks), so
        // it needs no escaping in the query.
        let request = self.request(
            Method::GET,
            &format!("actions/artifacts?name={name}&per_page={PER_PAGE}"),
        );
        let list: ArtifactList = self
            .call(&format!("listing the artifacts called {name:?}"), request)
            .await?;
        let mut found: Vec<Artifact> = list
            .artifacts
            .into_iter()
            .filter(|a| a.name == name && !a.expired)
            .filter(|a| {
                a.workflow_run
                    .as_ref()
                    .is_some_and(|r| r.head_branch.as_deref() == Some(branch))
            })
            .collect();
        // ISO 8601 times in one zone sort as text.
        found.sort_by(|a, b| b.created_at.cmp(&a.created_at));
        Ok(found.into_iter().next())
    }
}

/// GitHub's `message`, and what an authorisation failure usually means.
fn explain(status: StatusCode, text: &str) -> String {
    let message = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_string))
        .map(|m| format!(" {m:?}"))
        .unwrap_or_default();
    let hint = match status {
        StatusCode::UNAUTHORIZED => " (GITHUB_TOKEN is missing or not valid)",
        StatusCode::FORBIDDEN | StatusCode::NOT_FOUND => {
            " (the token cannot do this: a workflow needs `permissions: pull-requests: write` to comment, and a fork's pull request gets a read-only token)"
        }
        _ => "",
    };
    format!("{message}{hint}")
}

/// `body` cut to GitHub's limit on a character boundary, saying so.
pub(crate) fn fit_body(body: &str) -> String {
    if body.chars().count() <= MAX_BODY_CHARS {
        return body.to_string();
    }
    let note = "\n\n… cut to GitHub's comment limit; the job summary has the whole comparison.\n";
    let keep = MAX_BODY_CHARS - note.chars().count();
    let mut cut: String = body.chars().take(keep).collect();
    cut.push_str(note);
    cut
}
