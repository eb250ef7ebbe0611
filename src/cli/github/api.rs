//! A small client of the GitHub REST API: the calls the pull-request gate
//! makes (list, create and update an issue comment; the token's own login;
//! list a repository's artifacts and read the runs that uploaded them). The
//! token is sent in the `Authorization` header only; no message this module
//! makes contains it. A call GitHub answers with a 5xx, a 429 or a
//! secondary rate limit's 403 is tried again ([`ATTEMPTS`] in all).

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

/// At most this many pages of artifacts are read (10,000 artifacts).
const MAX_ARTIFACT_PAGES: usize = 100;

/// At most this many candidate runs are read to find one a baseline may
/// come from (each is one call).
const MAX_RUN_LOOKUPS: usize = 30;

/// A call is sent at most this many times (GitHub's 5xx, 429 and secondary
/// rate limits are passing states).
pub(crate) const ATTEMPTS: u32 = 4;

/// The longest wait between two attempts, whatever GitHub asks for.
const MAX_WAIT_SECS: u64 = 60;

/// The events whose runs on the baseline branch store a baseline: a run of
/// any other event (a pull request's above all, which runs the pull
/// request's own workflow) is never taken as one.
pub(crate) const BASELINE_EVENTS: [&str; 3] = ["push", "schedule", "workflow_dispatch"];

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
    #[serde(default)]
    pub(crate) user: Option<Account>,
}

/// A comment's author.
#[derive(Debug, Deserialize)]
pub(crate) struct Account {
    pub(crate) login: String,
}

/// The run that uploaded an artifact, as the artifact list gives it.
#[derive(Debug, Deserialize)]
pub(crate) struct WorkflowRun {
    pub(crate) id: u64,
    #[serde(default)]
    pub(crate) repository_id: Option<u64>,
    #[serde(default)]
    pub(crate) head_repository_id: Option<u64>,
    #[serde(default)]
    pub(crate) head_branch: Option<String>,
    #[serde(default)]
    pub(crate) head_sha: Option<String>,
}

/// A repository, as far as a run names it.
#[derive(Debug, Deserialize)]
struct RepoId {
    id: u64,
}

/// A workflow run (`GET /repos/{repo}/actions/runs/{id}`), as far as the
/// baseline's checks read it.
#[derive(Debug, Deserialize)]
struct RunDetails {
    #[serde(default)]
    event: Option<String>,
    #[serde(default)]
    head_branch: Option<String>,
    #[serde(default)]
    head_repository: Option<RepoId>,
    #[serde(default)]
    repository: Option<RepoId>,
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

    /// Sends `request` (again after a passing failure, [`ATTEMPTS`] times in
    /// all), and reads a 2xx answer as JSON; any other status is an error
    /// naming the call, the status and GitHub's message.
    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        request: RequestBuilder,
    ) -> anyhow::Result<T> {
        let mut attempt = 1;
        loop {
            let sent = self.send_once(what, &request, attempt).await?;
            match sent.wait {
                Some(wait) if attempt < ATTEMPTS => {
                    self.wait_before_again(what, &sent, wait, attempt).await;
                    attempt += 1;
                }
                _ => return self.read(what, sent),
            }
        }
    }

    /// Sends `request` once: GitHub's status (none when the request failed
    /// on the way), the wait before trying again if the failure passes, and
    /// the answer's text.
    async fn send_once(
        &self,
        what: &str,
        request: &RequestBuilder,
        attempt: u32,
    ) -> anyhow::Result<Sent> {
        // Every request the gate makes has a body in memory (or none), so
        // it clones.
        let this = request
            .try_clone()
            .ok_or_else(|| anyhow::anyhow!("{what}: the request cannot be sent again"))?;
        Ok(match this.send().await {
            Ok(answer) => {
                let status = answer.status();
                let wait = retry_wait(status, answer.headers(), attempt);
                let text = answer
                    .text()
                    .await
                    .map_err(|e| anyhow::anyhow!("{what}: reading the answer failed: {e}"))?;
                let wait = wait.or_else(|| secondary_limit(status, &text));
                Sent {
                    status: Some(status),
                    wait,
                    text,
                }
            }
            Err(e) => Sent {
                status: None,
                wait: Some(backoff(attempt)),
                text: e.to_string(),
            },
        })
    }

    /// Says why `what` is tried again, then waits `wait`.
    async fn wait_before_again(
        &self,
        what: &str,
        sent: &Sent,
        wait: std::time::Duration,
        attempt: u32,
    ) {
        let why = sent.status.map_or_else(
            || "the request failed".to_string(),
            |s| format!("HTTP {}", s.as_u16()),
        );
        eprintln!(
            "github: {what}: {why}; trying again in {}s (attempt {} of {ATTEMPTS})",
            wait.as_secs(),
            attempt + 1
        );
        tokio::time::sleep(wait).await;
    }

    /// A 2xx answer as JSON; any other status, or none, an error naming
    /// the call, the status and GitHub's message.
    fn read<T: serde::de::DeserializeOwned>(&self, what: &str, sent: Sent) -> anyhow::Result<T> {
        let Some(status) = sent.status else {
            bail!("{what}: the request failed: {}", self.redact(sent.text));
        };
        if !status.is_success() {
            let why = self.redact(explain(status, &sent.text));
            bail!("{what}: HTTP {}{why}", status.as_u16());
        }
        serde_json::from_str(&sent.text)
            .with_context(|| format!("{what}: the answer is not the JSON GitHub sends"))
    }

    /// `text` without the token (a server that echoes it back never gets it
    /// printed).
    fn redact(&self, text: String) -> String {
        match &self.token {
            Some(token) if token.len() >= 8 => text.replace(token.as_str(), "[redacted]"),
            _ => text,
        }
    }

    /// The login of the token's own account: the author of the comments
    /// the gate wrote before (GraphQL's `viewer`, which a workflow's
    /// `GITHUB_TOKEN` may ask for, unlike REST's `/user`). `graphql` is the
    /// GraphQL endpoint.
    pub(crate) async fn own_login(&self, graphql: &str) -> anyhow::Result<String> {
        let mut builder = self
            .http
            .request(Method::POST, graphql)
            .header("Accept", "application/vnd.github+json")
            .json(&json!({ "query": "query { viewer { login } }" }));
        if let Some(token) = &self.token {
            builder = builder.bearer_auth(token);
        }
        let answer: Value = self
            .call("asking GitHub whose token this is", builder)
            .await?;
        answer
            .pointer("/data/viewer/login")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "asking GitHub whose token this is: no viewer login in the answer{}",
                    answer
                        .pointer("/errors/0/message")
                        .and_then(Value::as_str)
                        .map(|m| format!(" ({})", self.redact(m.to_string())))
                        .unwrap_or_default()
                )
            })
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
    /// edits the first comment holding the marker written by `login` (the
    /// token's own account: anyone can write the marker into a comment of
    /// theirs, which the gate never edits), or creates one.
    pub(crate) async fn upsert_comment(
        &self,
        number: u64,
        marker: &str,
        login: &str,
        body: &str,
    ) -> anyhow::Result<(Posted, Option<String>)> {
        let existing = self.own_comment(number, marker, login).await?;
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
                let created = self.create_comment(number, marker, login, &payload).await?;
                (Posted::Created(created.id), created)
            }
        };
        Ok((posted, comment.html_url))
    }

    /// Creates the gate's comment on `number`. Unlike the other calls, a
    /// POST that failed with a 5xx or on the way may have been carried out
    /// (a comment made, the answer lost), so before it is sent again the
    /// comments are read once more for the one by `login` with `marker`:
    /// a retry never posts the verdict twice.
    async fn create_comment(
        &self,
        number: u64,
        marker: &str,
        login: &str,
        payload: &Value,
    ) -> anyhow::Result<IssueComment> {
        let what = format!("commenting on #{number}");
        let request = self
            .request(Method::POST, &format!("issues/{number}/comments"))
            .json(payload);
        let mut attempt = 1;
        loop {
            let sent = self.send_once(&what, &request, attempt).await?;
            let Some(wait) = sent.wait.filter(|_| attempt < ATTEMPTS) else {
                return self.read(&what, sent);
            };
            self.wait_before_again(&what, &sent, wait, attempt).await;
            attempt += 1;
            let maybe_made = sent.status.is_none_or(|s| s.is_server_error());
            if maybe_made && let Some(made) = self.own_comment(number, marker, login).await? {
                return Ok(made);
            }
        }
    }

    /// The first comment of `number` written by `login` whose first line
    /// is `marker`. Only the first line: `github-actions[bot]` writes for
    /// every workflow of the repository, and another gate's comment (or any
    /// comment that quotes model or pull-request text) may hold this
    /// marker further down; that comment is never this gate's.
    async fn own_comment(
        &self,
        number: u64,
        marker: &str,
        login: &str,
    ) -> anyhow::Result<Option<IssueComment>> {
        Ok(self.comments(number).await?.into_iter().find(|c| {
            c.user
                .as_ref()
                .is_some_and(|u| same_account(&u.login, login))
                && c.body
                    .as_deref()
                    .is_some_and(|b| starts_with_marker(b, marker))
        }))
    }

    /// The newest unexpired artifact called `name` uploaded by a run that
    /// may store a baseline of `branch`: a run of this repository's own
    /// code (its head repository is this repository, so no fork's pull
    /// request from a branch of that name), of one of [`BASELINE_EVENTS`],
    /// on `branch`. Every page of artifacts is read; each refused candidate
    /// is said on stderr with its reason.
    pub(crate) async fn latest_artifact(
        &self,
        name: &str,
        branch: &str,
    ) -> anyhow::Result<Option<Artifact>> {
        let mut found = Vec::new();
        for page in 1..=MAX_ARTIFACT_PAGES {
            // `name` is letters, digits, `-`, `_` and `.` (the CLI checks),
            // so it needs no escaping in the query.
            let request = self.request(
                Method::GET,
                &format!("actions/artifacts?name={name}&per_page={PER_PAGE}&page={page}"),
            );
            let list: ArtifactList = self
                .call(&format!("listing the artifacts called {name:?}"), request)
                .await?;
            let last = list.artifacts.len() < PER_PAGE;
            // Only real candidates take one of the MAX_RUN_LOOKUPS slots:
            // the list already says whose code ran (a fork's pull request
            // from its own `main` names that branch too), so those are
            // dropped here, each said, before any is counted.
            for artifact in list.artifacts {
                let Some(run) = artifact.workflow_run.as_ref() else {
                    continue;
                };
                if artifact.name != name
                    || artifact.expired
                    || run.head_branch.as_deref() != Some(branch)
                {
                    continue;
                }
                match foreign_code(run.repository_id, run.head_repository_id) {
                    Some(why) => eprintln!(
                        "github: not a baseline: artifact {} of run {}: {why}",
                        artifact.id, run.id
                    ),
                    None => found.push(artifact),
                }
            }
            if last {
                break;
            }
        }
        // ISO 8601 times in one zone sort as text.
        found.sort_by(|a, b| b.created_at.cmp(&a.created_at));
        for artifact in found.into_iter().take(MAX_RUN_LOOKUPS) {
            let Some(run) = artifact.workflow_run.as_ref() else {
                continue;
            };
            match self.baseline_refusal(run, branch).await? {
                None => return Ok(Some(artifact)),
                Some(why) => eprintln!(
                    "github: not a baseline: artifact {} of run {}: {why}",
                    artifact.id, run.id
                ),
            }
        }
        Ok(None)
    }

    /// Why the run that uploaded an artifact may not give the baseline of
    /// `branch` (`None`: it may): its head repository is not this
    /// repository, or its event is not one of [`BASELINE_EVENTS`].
    async fn baseline_refusal(
        &self,
        run: &WorkflowRun,
        branch: &str,
    ) -> anyhow::Result<Option<String>> {
        // The artifact list says whose code ran; a fork is refused without
        // another call (`latest_artifact` already dropped those).
        if let Some(why) = foreign_code(run.repository_id, run.head_repository_id) {
            return Ok(Some(why));
        }
        let request = self.request(Method::GET, &format!("actions/runs/{}", run.id));
        let details: RunDetails = self
            .call(&format!("reading workflow run {}", run.id), request)
            .await?;
        if let Some(why) = foreign_code(
            details.repository.map(|r| r.id),
            details.head_repository.map(|r| r.id),
        ) {
            return Ok(Some(why));
        }
        let event = details.event.unwrap_or_default();
        if !BASELINE_EVENTS.contains(&event.as_str()) {
            return Ok(Some(format!(
                "its event is {event:?}, and only {} runs store a baseline",
                BASELINE_EVENTS.join(", ")
            )));
        }
        if details.head_branch.as_deref() != Some(branch) {
            return Ok(Some(format!(
                "the run is on {:?}, not {branch:?}",
                details.head_branch.unwrap_or_default()
            )));
        }
        Ok(None)
    }
}

/// Whether `body`'s first line is `marker` (a trailing `\r` aside).
fn starts_with_marker(body: &str, marker: &str) -> bool {
    body.lines().next().map(|l| l.trim_end_matches('\r')) == Some(marker)
}

/// Why a run whose repository is `repo` and whose code came from `head`
/// may not give a baseline (`None`: its code is the repository's own).
fn foreign_code(repo: Option<u64>, head: Option<u64>) -> Option<String> {
    match (repo, head) {
        (Some(r), Some(h)) if r == h => None,
        (Some(r), Some(h)) => Some(format!(
            "its code came from another repository (head repository {h}, not {r}): a fork's"
        )),
        _ => Some("GitHub did not say which repository its code came from".to_string()),
    }
}

/// Whether two logins name one account: case aside, and a bot's `[bot]`
/// suffix aside (REST writes `github-actions[bot]` where GraphQL's author
/// is `github-actions`).
fn same_account(a: &str, b: &str) -> bool {
    let bare = |s: &str| s.trim_end_matches("[bot]").to_ascii_lowercase();
    bare(a) == bare(b)
}

/// How long to wait before sending a call again, when GitHub's answer says
/// it may pass later: a 5xx or 429, or any answer whose headers ask for a
/// wait (`retry-after`, or no rate left until `x-ratelimit-reset`).
/// One answer of GitHub's (or none: `status` is `None` when the request
/// failed on the way), with the wait before trying again when the failure
/// passes.
struct Sent {
    status: Option<StatusCode>,
    wait: Option<std::time::Duration>,
    text: String,
}

fn retry_wait(
    status: StatusCode,
    headers: &reqwest::header::HeaderMap,
    attempt: u32,
) -> Option<std::time::Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if status.is_success() {
        return None;
    }
    let asked = header("retry-after")
        .and_then(|v| v.parse::<u64>().ok())
        .or_else(|| {
            (header("x-ratelimit-remaining") == Some("0"))
                .then(|| header("x-ratelimit-reset")?.parse::<u64>().ok())
                .flatten()
                .map(|reset| {
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs());
                    reset.saturating_sub(now)
                })
        });
    match asked {
        Some(secs)
            if status.is_server_error()
                || status == StatusCode::TOO_MANY_REQUESTS
                || status == StatusCode::FORBIDDEN =>
        {
            Some(std::time::Duration::from_secs(secs.min(MAX_WAIT_SECS)))
        }
        _ if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS => {
            Some(backoff(attempt))
        }
        _ => None,
    }
}

/// A 403 whose message says a secondary rate limit was hit, without a
/// header saying how long to wait: GitHub asks for at least a minute.
fn secondary_limit(status: StatusCode, text: &str) -> Option<std::time::Duration> {
    (status == StatusCode::FORBIDDEN && text.to_ascii_lowercase().contains("secondary rate limit"))
        .then(|| std::time::Duration::from_secs(MAX_WAIT_SECS))
}

/// The wait before attempt `attempt + 1` when GitHub names none: 1 s, 2 s,
/// 4 s.
fn backoff(attempt: u32) -> std::time::Duration {
    std::time::Duration::from_secs(1 << (attempt - 1).min(5))
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
