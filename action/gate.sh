#!/usr/bin/env bash
# shellcheck disable=SC2016 # backticks in strings are Markdown, never commands
# The steps of the pull-request gate (action.yml beside this file), one
# stage per call: `gate.sh STAGE`. action.yml maps its inputs to the TG_*
# variables below; tests/it/action_gate.rs runs these stages against a
# stand-in GitHub API. Everything the gate does to GitHub goes through
# `tribunal github …`; no stage prints a secret.
#
# Written for bash 3.2 (macOS runners) as well as 5: no mapfile, no
# associative arrays, and an array that may be empty is expanded as
# ${a[@]+"${a[@]}"} (bash before 4.4 calls "${a[@]}" of an empty array
# unbound under set -u).
#
# Inputs (environment; setup writes each to GITHUB_ENV for the later steps):
#   TG_ARENAS           arena folders, whitespace-separated (required)
#   TG_BACKEND          mock | openai-chat | openai-responses | anthropic (default mock)
#   TG_MODEL            the model (live backends)
#   TG_REPEATS          runs per item (default 1)
#   TG_GATE             any | significant | '' (compare's default)
#   TG_ALPHA            the significance level (default 0.05)
#   TG_MAX_COST_USD     the whole job's spending cap ('' = no cap)
#   TG_CACHE            true: answer repeated requests from the rerun cache
#   TG_SHARDS           shard processes per arena in this job (default 1)
#   TG_REPLAY           a cassette folder: what a run without secrets replays
#   TG_API_KEY          the model's key (the input api-key), given only to the
#                       steps that run a model; else the backend's variable
#                       (OPENAI_API_KEY, ANTHROPIC_API_KEY) of the job
#   TG_API_KEY_SET      true when the input api-key is set (setup, which
#                       never sees the key itself)
#   TG_RUN_ARGS         more `tribunal run` flags, whitespace-separated
#   TG_NAME             the gate's name: artifact names and the comment's key
#   TG_MODE             auto | gate | baseline (default auto: from the event)
#   TG_PATHS            globs: a pull request changing none of them skips
#   TG_NEW_ARENA_MIN_PASS_RATE  the pass rate an arena without a baseline needs
#   TG_EVENT            the GitHub event (pull_request, push, …)
#   TG_PR               the pull request's number ('' outside one)
#   TG_FORK             true when the pull request comes from a fork
#   TG_BRANCH           the branch this run is on (github.ref_name)
#   TG_BASE_REF         a pull request's base branch (github.base_ref)
#   TG_MERGE_BASE_REF   a merge queue group's base ref (refs/heads/…)
#   TG_DEFAULT_BRANCH   the repository's default branch
#   TG_BASELINE_BRANCH  the input baseline-branch ('' = the above, in order)
#   TG_BASE_SHA         a pull request's base commit (the paths filter)
#   TG_SHA              the commit under test (the rerun cache's key)
#   TG_COMMENT          true: post or update the pull request comment
#   TG_RUNNER_TEMP      where the gate's folders go
#   TG_DETAILS_URL      the run's page, linked from the comment
#   TG_ACTION_REF, TG_ACTION_REPOSITORY, TG_VERSION_INPUT, TG_ACTION_PATH
#                       the action's own ref and repository, the input
#                       version, the action's folder: which tribunal to install
#   TG_BASELINE_FOUND, TG_BASELINE_RUN  the stored baseline's (find-baseline)
#   TG_KIND             gate | baseline: what setup decided (the job's env)
#   TG_KIND_OUTPUT      setup's output kind, as the verdict step reads it
#   TRIBUNAL            the tribunal binary, by path (install sets it)
#   GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH, GITHUB_STEP_SUMMARY, GITHUB_TOKEN,
#   GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_SERVER_URL  as Actions sets them
set -euo pipefail
# A failure inside $(…) fails the stage (bash 4.4+; on macOS's bash 3.2
# every read of a number is checked where it is made: read_number).
shopt -s inherit_errexit 2>/dev/null || true

TG_BACKEND="${TG_BACKEND:-mock}"
TG_MODEL="${TG_MODEL:-}"
TG_REPEATS="${TG_REPEATS:-1}"
TG_GATE="${TG_GATE:-}"
TG_ALPHA="${TG_ALPHA:-0.05}"
TG_MAX_COST_USD="${TG_MAX_COST_USD:-}"
TG_CACHE="${TG_CACHE:-true}"
TG_SHARDS="${TG_SHARDS:-1}"
TG_REPLAY="${TG_REPLAY:-}"
TG_RUN_ARGS="${TG_RUN_ARGS:-}"
TG_NAME="${TG_NAME:-tribunal}"
TG_MODE="${TG_MODE:-auto}"
TG_PATHS="${TG_PATHS:-}"
TG_NEW_ARENA_MIN_PASS_RATE="${TG_NEW_ARENA_MIN_PASS_RATE:-1}"
TG_EVENT="${TG_EVENT:-}"
TG_PR="${TG_PR:-}"
TG_FORK="${TG_FORK:-false}"
TG_BRANCH="${TG_BRANCH:-}"
TG_BASELINE_BRANCH="${TG_BASELINE_BRANCH:-}"
TG_CACHE_DIR="${TG_CACHE_DIR:-}"
TG_SECRETLESS="${TG_SECRETLESS:-false}"
TG_RUN_MODE="${TG_RUN_MODE:-}"
TG_COMMENT="${TG_COMMENT:-true}"
TG_DETAILS_URL="${TG_DETAILS_URL:-}"
TG_KIND="${TG_KIND:-}"
TRIBUNAL="${TRIBUNAL:-tribunal}"
GITHUB_OUTPUT="${GITHUB_OUTPUT:-/dev/null}"
GITHUB_STEP_SUMMARY="${GITHUB_STEP_SUMMARY:-/dev/null}"

# The events whose runs on the baseline branch store the baseline: the same
# list `tribunal github find-baseline` accepts a stored baseline from.
BASELINE_EVENTS="push schedule workflow_dispatch"

# The events whose job runs with the base repository's secrets and write
# token next to code a fork may have written (the workflow can check out
# the pull request's head; an arena is code: `[[mcp]] command=` starts a
# process, a `bearer_env` with a `url` sends the key to that server). The
# gate runs them only without a model key: the mock, or `replay:`.
PRIVILEGED_EVENTS="pull_request_target workflow_run"

# Workflow commands (`::error::`, and `##[…]` anywhere in a line) are off
# while a stage runs: git, curl and tribunal print text a pull request or a
# model controls (file names, item ids). The token is random per stage;
# note/refuse turn them on again only for the gate's own lines.
STOP_TOKEN="tg$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
commands_off() { printf '::stop-commands::%s\n' "$STOP_TOKEN" >&2; }
commands_on() { printf '::%s::\n' "$STOP_TOKEN" >&2; }

note() { printf 'tribunal gate: %s\n' "$*" >&2; }

# Stops the stage: the message, then exit 2 (a configuration the gate
# cannot gate with; the job fails).
refuse() {
    note "$*"
    commands_on
    printf '::error title=tribunal gate::%s\n' "$*" >&2
    commands_off
    exit 2
}

# A file name (a pull request's) as a log line may carry it: every
# character but letters, digits and `._/+=,-` as `_`, so it can start no
# workflow command.
safe_name() {
    local LC_ALL=C
    printf '%s' "${1//[^A-Za-z0-9._\/+=,-]/_}"
}

# The one rule for text a pull request or a model controls in a comment
# (the same as the reports', judge/src/report/format/markdown.rs
# `code_span`): a code span it cannot close, fenced by one backtick more
# than its longest run of them, line breaks as spaces.
md_code() {
    local s="${1//$'\r'/ }" fence='`' pad=''
    s="${s//$'\n'/ }"
    [[ -n "$s" ]] || return 0
    while [[ "$s" == *"$fence"* ]]; do
        fence="$fence\`"
    done
    if [[ "$s" == '`'* || "$s" == *'`' ]]; then
        pad=' '
    fi
    printf '%s%s%s%s%s' "$fence" "$pad" "$s" "$pad" "$fence"
}

# Writes step output $1 = $2 with a random delimiter: no value (an input
# with a line break above all) can set another output.
output() {
    local delim
    delim="TG_EOF_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
    printf '%s<<%s\n%s\n%s\n' "$1" "$delim" "$2" "$delim" >>"$GITHUB_OUTPUT"
}

# The results of arena folder $1 are <slug>.jsonl: its path with '/' as '-'.
slug() {
    local s="${1%/}"
    s="${s#./}"
    s="${s//\//-}"
    printf '%s' "${s//\\/-}"
}

# Whether word $1 is one of the words $2.
one_of() {
    local w
    for w in $2; do
        [[ "$w" == "$1" ]] && return 0
    done
    return 1
}

# The variable holding the API key the backend needs ('' for the mock).
key_var() {
    case "$TG_BACKEND" in
        openai-chat | openai-responses) printf 'OPENAI_API_KEY' ;;
        anthropic) printf 'ANTHROPIC_API_KEY' ;;
        *) printf '' ;;
    esac
}

# The model's key is read once, here, and taken out of this process's
# environment: git, curl, jq, gh, cargo (whose dependencies' build
# scripts run) and every tribunal command but `run` never see it
# (run_tribunal gives it back to `run` alone).
MODEL_KEY="${TG_API_KEY:-}"
if [[ -z "$MODEL_KEY" && -n "$(key_var)" ]]; then
    MODEL_KEY="$(printenv "$(key_var)" || true)"
fi
unset TG_API_KEY OPENAI_API_KEY ANTHROPIC_API_KEY

# A number read from $2 (a command's output): refuses, naming $1, unless
# it is a plain decimal. No arithmetic is ever done on a failed read.
read_number() {
    [[ "$2" =~ ^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]] ||
        refuse "$1 is not a number ('$(safe_name "$2")'): the gate cannot count what was spent"
    printf '%s' "$2"
}

# Records that stage $1 began (the comment names a stage that never ended).
begin() {
    mkdir -p "$TG_WORK"
    printf '%s\n' "$1" >"$TG_WORK/stage"
}
finish() { rm -f "$TG_WORK/stage"; }

# --- setup -------------------------------------------------------------

# Each input the gate puts in a command, a path, a cache key or an output
# is one it can read: refuses the first that is not, naming it.
check_inputs() {
    local var value
    [[ "$TG_NAME" =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$ ]] ||
        refuse "name '$(safe_name "$TG_NAME")' is not a gate name: letters, digits, '.', '_' and '-', at most 64 (it names artifacts, caches and the comment)"
    one_of "$TG_BACKEND" "mock openai-chat openai-responses anthropic" ||
        refuse "backend '$(safe_name "$TG_BACKEND")' is not one of mock, openai-chat, openai-responses, anthropic"
    [[ "$TG_MODEL" =~ ^[A-Za-z0-9._:/@+-]*$ ]] ||
        refuse "model '$(safe_name "$TG_MODEL")' is not a model name: letters, digits and '._:/@+-'"
    [[ "$TG_REPEATS" =~ ^[1-9][0-9]{0,3}$ ]] || refuse "repeats '$(safe_name "$TG_REPEATS")' is not a whole number from 1 to 9999"
    [[ "$TG_SHARDS" =~ ^[1-9][0-9]{0,1}$ ]] || refuse "shards '$(safe_name "$TG_SHARDS")' is not a whole number from 1 to 99"
    one_of "${TG_GATE:-any}" "any significant" || refuse "gate '$(safe_name "$TG_GATE")' is not one of any, significant (or empty)"
    [[ "$TG_ALPHA" =~ ^0?\.[0-9]*[1-9][0-9]*$ ]] || refuse "alpha '$(safe_name "$TG_ALPHA")' is not a significance level in (0, 1)"
    [[ -z "$TG_MAX_COST_USD" || "$TG_MAX_COST_USD" =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
        refuse "max-cost-usd '$(safe_name "$TG_MAX_COST_USD")' is not an amount in USD (or empty)"
    [[ "$TG_NEW_ARENA_MIN_PASS_RATE" =~ ^(0(\.[0-9]+)?|1(\.0+)?|\.[0-9]+)$ ]] ||
        refuse "new-arena-min-pass-rate '$(safe_name "$TG_NEW_ARENA_MIN_PASS_RATE")' is not a rate from 0 to 1"
    for var in TG_CACHE TG_COMMENT; do
        one_of "${!var}" "true false" || refuse "${var#TG_} '$(safe_name "${!var}")' is not true or false"
    done
    [[ -z "${TG_VERSION_INPUT:-}" || "$TG_VERSION_INPUT" == "source" || "$TG_VERSION_INPUT" =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] ||
        refuse "version '$(safe_name "$TG_VERSION_INPUT")' is not a release tag (vX.Y.Z) or source"
    # The rest are words and paths: none may hold a line break.
    for var in TG_ARENAS TG_PATHS TG_RUN_ARGS TG_REPLAY TG_BASELINE_BRANCH TG_BRANCH TG_PR; do
        value="${!var:-}"
        [[ "$value" != *$'\n'* && "$value" != *$'\r'* ]] ||
            refuse "${var#TG_} holds a line break"
    done
    [[ -z "$TG_PR" || "$TG_PR" =~ ^[0-9]+$ ]] || refuse "pull request number '$(safe_name "$TG_PR")' is not a number"
}

# The tools the gate's stages call, said before anything runs: without jq
# the job's spending reads as 0 and its cap as untouched.
check_tools() {
    local tool missing=()
    for tool in git jq awk od; do
        command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
    done
    [[ ${#missing[@]} -eq 0 ]] ||
        refuse "${missing[*]} not on this runner: the gate needs git, jq, awk and od (GitHub's hosted runners have them); install them in a step before this one"
}

# The mode of this run and what it gates on (README "The pull-request
# gate", the mode table). Prints "mode kind secretless": kind gate
# compares this commit with the baseline branch's results, kind baseline
# stores them; secretless true runs both sides without a model key (the
# mock, or the cassettes of replay). A run the gate cannot gate refuses,
# naming the input that would make it.
decide_mode() {
    local has_key=false
    if [[ -n "$MODEL_KEY" || "${TG_API_KEY_SET:-}" == "true" ]]; then
        has_key=true
    fi
    # A job with the base repository's secrets over code a fork may have
    # written: never with a model key, whatever the mode says.
    if one_of "$TG_EVENT" "$PRIVILEGED_EVENTS"; then
        [[ "$TG_MODE" != "baseline" ]] ||
            refuse "mode: baseline on a $TG_EVENT run: a baseline is taken only from push, schedule and workflow_dispatch runs"
        if [[ "$TG_BACKEND" != "mock" && -z "$TG_REPLAY" ]]; then
            refuse "event $TG_EVENT runs with this repository's secrets next to code a fork may have written (an arena is code: its [[mcp]] commands run, its bearer_env is sent to the server it names), so the gate never runs it with a model key: run the gate on pull_request (a fork's run gets no secrets there), or set backend: mock or a replay: folder here"
        fi
        printf '%s gate true' "${TG_EVENT//_/-}"
        return 0
    fi
    # Without secrets: a fork's pull request, or one whose job has no key
    # (Dependabot's), whatever the mode. Any other run without the key
    # fails in `tribunal run`: a merge queue or a push that measured only
    # the mock is never a green check.
    local secretless=false
    if [[ "$TG_FORK" == "true" ]] ||
        [[ "$TG_EVENT" == "pull_request" && "$TG_BACKEND" != "mock" && "$has_key" != "true" ]]; then
        secretless=true
    fi
    case "$TG_MODE" in
        gate) printf 'gate gate %s' "$secretless" ;;
        baseline)
            one_of "$TG_EVENT" "$BASELINE_EVENTS" ||
                refuse "mode: baseline on a $TG_EVENT run: a baseline is taken only from push, schedule and workflow_dispatch runs (a pull request's run can upload anything); use mode: gate here"
            [[ "$TG_BRANCH" == "$TG_BASELINE_BRANCH" ]] ||
                refuse "mode: baseline on branch '$TG_BRANCH': pull requests look for baselines of '$TG_BASELINE_BRANCH' only; set baseline-branch: $TG_BRANCH, or run this on '$TG_BASELINE_BRANCH'"
            printf 'baseline baseline false'
            ;;
        auto)
            case "$TG_EVENT" in
                pull_request)
                    [[ -n "$TG_PR" ]] || refuse "a pull_request run without a pull request number"
                    if [[ "$TG_FORK" == "true" ]]; then
                        printf 'fork-pr gate true'
                    elif [[ "$secretless" == "true" ]]; then
                        printf 'no-secret-pr gate true'
                    else
                        printf 'pr gate false'
                    fi
                    ;;
                merge_group) printf 'merge-queue gate %s' "$secretless" ;;
                push | schedule | workflow_dispatch)
                    local name="$TG_EVENT"
                    [[ "$name" == "workflow_dispatch" ]] && name="dispatch"
                    if [[ "$TG_BRANCH" == "$TG_BASELINE_BRANCH" ]]; then
                        printf 'baseline baseline false'
                    else
                        printf '%s gate %s' "$name" "$secretless"
                    fi
                    ;;
                *)
                    refuse "event '$TG_EVENT' has no rule of its own, so the gate cannot tell what to compare; set the input mode: gate to compare this commit with '$TG_BASELINE_BRANCH', or mode: baseline to store it as the baseline (push, schedule and workflow_dispatch runs on '$TG_BASELINE_BRANCH' only)"
                    ;;
            esac
            ;;
        *) refuse "mode '$(safe_name "$TG_MODE")' is not one of auto, gate, baseline" ;;
    esac
}

# The release tag of tribunal this action installs: the version input; else
# the action's own ref when it is a release tag; else the version in the
# action's own Cargo.toml (a branch or commit pin runs the release of the
# version it is at). 'source' builds the action's source (a local action).
wanted_version() {
    local ref="${TG_ACTION_REF:-}" root="${TG_ACTION_PATH:-${GITHUB_ACTION_PATH:-.}}/.."
    if [[ -n "${TG_VERSION_INPUT:-}" ]]; then
        printf '%s' "$TG_VERSION_INPUT"
    elif [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then
        printf '%s' "$ref"
    elif [[ -z "${TG_ACTION_REPOSITORY:-}" ]]; then
        # `uses: ./action`: the repository's own source, under test.
        printf 'source'
    else
        local v
        v="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\([^"]*\)".*/\1/p' "$root/Cargo.toml" | head -n 1)"
        [[ -n "$v" ]] || refuse "no version in $root/Cargo.toml: set the input version to a release tag"
        printf 'v%s' "$v"
    fi
}

# setup: the inputs and tools checked, the mode, the working folder and
# the cache keys; every TG_* value goes to the job's environment and every
# output is written with a random delimiter, so no input can set another
# variable or output.
stage_setup() {
    : "${TG_ARENAS:?TG_ARENAS: which arena(s) to run}"
    check_inputs
    check_tools
    local temp="${TG_RUNNER_TEMP:-${RUNNER_TEMP:-/tmp}}"
    if [[ -z "$TG_BASELINE_BRANCH" ]]; then
        local merge_base="${TG_MERGE_BASE_REF:-}"
        TG_BASELINE_BRANCH="${TG_BASE_REF:-}"
        [[ -n "$TG_BASELINE_BRANCH" ]] || TG_BASELINE_BRANCH="${merge_base#refs/heads/}"
        [[ -n "$TG_BASELINE_BRANCH" ]] || TG_BASELINE_BRANCH="${TG_DEFAULT_BRANCH:-main}"
    fi
    local decided mode kind
    decided="$(decide_mode)"
    read -r mode kind TG_SECRETLESS <<<"$decided"
    TG_RUN_MODE="$mode"
    TG_KIND="$kind"
    # Each use of the action in a job has its own folder.
    mkdir -p "$temp"
    TG_WORK="$(mktemp -d "$temp/tribunal-gate-$TG_NAME.XXXXXX")"
    TG_CACHE_DIR="$temp/tribunal-cache-$TG_NAME"
    TG_VERSION="$(wanted_version)"
    TG_BIN_DIR="$temp/tribunal-archive-$TG_VERSION"
    TG_RELEASE_REPO="${TG_ACTION_REPOSITORY:-}"
    local var delim env_file="${GITHUB_ENV:-/dev/null}"
    for var in TG_ARENAS TG_BACKEND TG_MODEL TG_REPEATS TG_GATE TG_ALPHA TG_MAX_COST_USD \
        TG_CACHE TG_CACHE_DIR TG_SHARDS TG_REPLAY TG_RUN_ARGS TG_NAME TG_EVENT TG_PR TG_FORK \
        TG_BRANCH TG_BASELINE_BRANCH TG_BASE_SHA TG_COMMENT TG_WORK TG_DETAILS_URL TG_RUN_MODE \
        TG_SECRETLESS TG_PATHS TG_NEW_ARENA_MIN_PASS_RATE TG_VERSION TG_BIN_DIR TG_RELEASE_REPO \
        TG_KIND; do
        delim="TG_EOF_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
        printf '%s<<%s\n%s\n%s\n' "$var" "$delim" "${!var:-}" "$delim" >>"$env_file"
    done
    local comment=false
    [[ -n "$TG_PR" && "$TG_COMMENT" == "true" && "$kind" == "gate" ]] && comment=true
    local stored=false
    [[ "$kind" == "gate" && "$TG_SECRETLESS" != "true" ]] && stored=true
    local model_key="${TG_MODEL//[^A-Za-z0-9._-]/_}"
    # The rerun cache decides answers, so it decides verdicts: a run of
    # kind gate (a pull request's, which runs its own code) saves under
    # `-gate-` and a baseline under `-baseline-`; a baseline restores only
    # `-baseline-`, so nothing a pull request wrote is ever read on the
    # baseline branch (actions/cache scopes by branch too, but any
    # workflow in the default branch's scope could write one).
    local cache="tribunal-cache-$TG_NAME-$TG_BACKEND-$model_key"
    local restore="$cache-baseline-"
    [[ "$kind" == "baseline" ]] || restore="$cache-gate-"$'\n'"$cache-baseline-"
    output mode "$mode"
    output kind "$kind"
    output comment "$comment"
    output stored "$stored"
    output secretless "$TG_SECRETLESS"
    output work "$TG_WORK"
    output cache-dir "$TG_CACHE_DIR"
    output cache-key "$cache-$kind-${TG_SHA:-none}"
    output cache-restore "$restore"
    output bin-dir "$TG_BIN_DIR"
    # Computed here, in a run step, from the ref read in this step's env:
    # inside the cache step's `with:` github.action_ref is the cache
    # action's own ref (tests/it/action_gate.rs cites the runner).
    output bin-key "tribunal-archive-${TG_RUNNER_OS:-$(uname -s)}-${TG_RUNNER_ARCH:-$(uname -m)}-$TG_VERSION"
    output version "$TG_VERSION"
    note "mode $mode ($kind; event $TG_EVENT, baseline branch $TG_BASELINE_BRANCH, tribunal $TG_VERSION)"
}

# --- install -----------------------------------------------------------

# The release target of this machine and its archive's extension:
# "target ext exe".
release_target() {
    local os arch
    os="$(uname -s)"
    arch="$(uname -m)"
    case "$arch" in
        x86_64 | amd64) arch=x86_64 ;;
        aarch64 | arm64) arch=aarch64 ;;
        *) return 1 ;;
    esac
    case "$os" in
        Linux) printf '%s-unknown-linux-gnu tar.gz tribunal' "$arch" ;;
        Darwin) printf '%s-apple-darwin tar.gz tribunal' "$arch" ;;
        MINGW* | MSYS* | CYGWIN* | Windows_NT)
            [[ "$arch" == "x86_64" ]] || return 1
            printf 'x86_64-pc-windows-msvc zip tribunal.exe'
            ;;
        *) return 1 ;;
    esac
}

# What binary $1 says `--version` is, run with no token of any kind.
version_of() {
    (
        unset GH_TOKEN GITHUB_TOKEN
        "$1" --version 2>&1 || true
    )
}

# Whether the binary $1 says it is version $2 (a tag vX.Y.Z).
is_version() {
    [[ "$(version_of "$1")" == "tribunal ${2#v}" ]]
}

# The SHA-256 of file $1, in hex.
sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | awk '{ print $1 }'
    else
        shasum -a 256 "$1" | awk '{ print $1 }'
    fi
}

# The SHA-256 this action pins for the archive of tribunal $1 on target $2
# (action/digests.txt: "vX.Y.Z TARGET SHA256" lines, written at release,
# docs/ci-gate.md "Releasing"); nothing when it pins none.
pinned_digest() {
    local file="${TG_ACTION_PATH:-${GITHUB_ACTION_PATH:-.}}/digests.txt"
    [[ -f "$file" ]] || return 0
    awk -v v="$1" -v t="$2" '$1 == v && $2 == t && length($3) == 64 && $3 !~ /[^0-9a-f]/ { print $3; exit }' "$file"
}

# Verifies the build attestation of archive $1, tribunal $2: signed by
# this repository's release workflow, built from the tag. Required: a
# runner without gh (a container job, a self-hosted runner) fails here
# rather than skipping it.
verify_attestation() {
    local file="$1" version="$2" repo="${TG_RELEASE_REPO:-}"
    command -v gh >/dev/null 2>&1 ||
        refuse "gh is not on this runner (a container job or a self-hosted runner), so the build attestation of $(basename "$file") cannot be verified: put gh on the runner, or set the input version: source to build tribunal here"
    gh attestation verify "$file" --repo "$repo" \
        --signer-workflow "$repo/.github/workflows/release.yml" \
        --source-ref "refs/tags/$version" --deny-self-hosted-runners >&2 ||
        refuse "the build attestation of $(basename "$file") does not verify (gh attestation verify --repo $repo --signer-workflow $repo/.github/workflows/release.yml --source-ref refs/tags/$version): refusing it"
    note "the build attestation of $(basename "$file") verified (release.yml of $repo at refs/tags/$version)"
}

# Builds the action's source with cargo (no token, no key in its
# environment: dependencies' build scripts run), into a folder that is
# never cached.
build_source() {
    local version="$1" exe="$2"
    local src="${TG_SOURCE:-${TG_ACTION_PATH:-${GITHUB_ACTION_PATH:-.}}/..}"
    local build="${TG_RUNNER_TEMP:-${RUNNER_TEMP:-/tmp}}/tribunal-build"
    (
        unset GH_TOKEN GITHUB_TOKEN
        cargo install --locked --root "$build" --path "$src" --bin tribunal
    )
    if [[ "$version" != "source" ]] && ! is_version "$build/bin/$exe" "$version"; then
        refuse "the action's source builds '$(safe_name "$(version_of "$build/bin/$exe")")', not tribunal ${version#v}: set the input version to a release tag this action pins"
    fi
    use_binary "$build/bin/$exe"
}

# install: the release archive of TG_VERSION for this machine, checked
# against the SHA-256 this action pins for it on every use — a download
# (whose build attestation is verified too) or the cached archive alike —
# then unpacked to a fresh folder and its binary called by path. Only the
# archive is cached; a cached one that does not match is thrown away.
# Without a pinned digest (or with TG_VERSION 'source'), `cargo install
# --locked` of the action's source into a folder that is not cached.
stage_install() {
    local dir="${TG_BIN_DIR:?TG_BIN_DIR}" version="${TG_VERSION:?TG_VERSION}"
    local repo="${TG_RELEASE_REPO:-}" server="${GITHUB_SERVER_URL:-https://github.com}"
    local spec target ext exe digest
    spec="$(release_target)" || spec=""
    read -r target ext exe <<<"${spec:-- - tribunal}"
    if [[ "$version" == "source" ]]; then
        build_source "$version" "$exe"
        return 0
    fi
    [[ -n "$spec" ]] || refuse "no release binary for $(uname -s) $(uname -m): set the input version: source to build tribunal here"
    digest="$(pinned_digest "$version" "$target")"
    if [[ -z "$digest" ]]; then
        note "this action pins no digest of tribunal $version for $target (action/digests.txt): building the action's source; pin the action at the commit that records the release's digests to install the release instead"
        build_source "$version" "$exe"
        return 0
    fi
    local name="tribunal-${version}-${target}" tmp
    tmp="$(mktemp -d "${TG_RUNNER_TEMP:-${RUNNER_TEMP:-/tmp}}/tribunal-exe.XXXXXX")"
    local archive="$dir/$name.$ext" got
    if [[ -f "$archive" ]]; then
        # The cache is written by any job in the branch's scope: its copy
        # is checked like a download, on the copy that is then unpacked.
        cp "$archive" "$tmp/$name.$ext"
        got="$(sha256_of "$tmp/$name.$ext")"
        if [[ "$got" == "$digest" ]]; then
            note "tribunal $version from the cache: its archive matches the digest this action pins"
        else
            note "the cached $name.$ext does not match the digest this action pins: throwing it away"
            rm -f "$archive" "$tmp/$name.$ext"
        fi
    fi
    if [[ ! -f "$tmp/$name.$ext" ]]; then
        [[ -n "$repo" ]] || refuse "no repository to download tribunal $version from"
        command -v curl >/dev/null 2>&1 || refuse "curl is not on this runner: the gate downloads tribunal with it"
        local url="$server/$repo/releases/download/$version/$name.$ext" code
        code="$(curl -sSL --retry 3 -o "$tmp/$name.$ext" -w '%{http_code}' "$url" || true)"
        [[ "$code" == "200" ]] ||
            refuse "downloading $url failed (HTTP ${code:-none}): this action pins that archive's digest, so its release should hold it"
        got="$(sha256_of "$tmp/$name.$ext")"
        # A digest that does not match is never run, and never papered
        # over by a build: it fails the job.
        [[ "$got" == "$digest" ]] ||
            refuse "$name.$ext from $url has SHA-256 $got, not the $digest this action pins for it: refusing it"
        verify_attestation "$tmp/$name.$ext" "$version"
        mkdir -p "$dir"
        cp "$tmp/$name.$ext" "$archive"
    fi
    if [[ "$ext" == "zip" ]]; then
        (cd "$tmp" && unzip -q "$name.$ext")
    else
        tar -xzf "$tmp/$name.$ext" -C "$tmp"
    fi
    is_version "$tmp/$name/$exe" "$version" ||
        refuse "$name.$ext holds '$(safe_name "$(version_of "$tmp/$name/$exe")")', not tribunal ${version#v}: refusing it"
    chmod 0755 "$tmp/$name/$exe"
    note "installed the release binary $name (SHA-256 pinned by the action)"
    use_binary "$tmp/$name/$exe"
}

# The later steps run binary $1, by its path: its folder never goes on
# PATH, so nothing beside it stands in for git, jq or curl.
use_binary() {
    local bin="$1" delim
    delim="TG_EOF_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
    printf 'TRIBUNAL<<%s\n%s\n%s\n' "$delim" "$bin" "$delim" >>"${GITHUB_ENV:-/dev/null}"
}

# --- find-baseline -----------------------------------------------------

stage_find_baseline() {
    "$TRIBUNAL" github find-baseline --artifact "$TG_NAME-baseline" \
        --branch "$TG_BASELINE_BRANCH" >>"$GITHUB_OUTPUT"
}

# --- running arenas ----------------------------------------------------

# The backend flags of this run. Without secrets (a fork's pull request, or
# one whose job has no key): the cassettes in TG_REPLAY when given, else
# the mock, on both sides.
backend_flags() {
    if [[ "$TG_BACKEND" == "mock" ]]; then
        return 0
    fi
    if [[ "${TG_SECRETLESS:-false}" == "true" ]]; then
        if [[ -n "$TG_REPLAY" ]]; then
            printf '%s\n' --backend "$TG_BACKEND" --model "$TG_MODEL" --replay "$TG_REPLAY"
        fi
        return 0
    fi
    printf '%s\n' --backend "$TG_BACKEND"
    [[ -z "$TG_MODEL" ]] || printf '%s\n' --model "$TG_MODEL"
    [[ "$TG_CACHE" != "true" ]] || printf '%s\n' --cache "$TG_CACHE_DIR"
    return 0
}

# `tribunal ARGS…` with the model's key in its environment: only `run` of
# a run with secrets gets it; never the GitHub token.
run_tribunal() {
    (
        unset GH_TOKEN GITHUB_TOKEN
        local var
        var="$(key_var)"
        if [[ -n "$var" && -n "$MODEL_KEY" && "${TG_SECRETLESS:-false}" != "true" ]]; then
            export "$var=$MODEL_KEY"
        fi
        exec "$TRIBUNAL" "$@"
    )
}

# What kind of run the secret rules made of this one, for the comment.
secretless_note() {
    [[ "${TG_SECRETLESS:-false}" == "true" && "$TG_BACKEND" != "mock" ]] || return 0
    local who
    case "${TG_RUN_MODE:-}" in
        fork-pr) who="Pull request from a fork: repository secrets are not given to it" ;;
        pull-request-target | workflow-run) who="Event \`${TG_EVENT}\` runs next to code a fork may have written: the gate never gives it a model key" ;;
        *) who="Pull request without secrets (\`$(key_var)\` is empty here, as for Dependabot's)" ;;
    esac
    if [[ -n "$TG_REPLAY" ]]; then
        printf '%s, so both sides replayed the cassettes in %s instead of calling %s.' "$who" "$TG_REPLAY" "$TG_BACKEND"
    else
        printf '%s, so both sides ran the mock instead of %s.' "$who" "$TG_BACKEND"
    fi
}

# The values of the `tribunal run` flags $2… in TG_RUN_ARGS, each printed
# as "$1FLAG VALUE" lines split in two (`--flag V` or `--flag=V`).
run_arg_flags() {
    local words=() i w flag
    read -r -a words <<<"$TG_RUN_ARGS" || true
    for ((i = 0; i < ${#words[@]}; i++)); do
        w="${words[$i]}"
        for flag in "$@"; do
            if [[ "$w" == "$flag" && $((i + 1)) -lt ${#words[@]} ]]; then
                printf '%s\n%s\n' "$flag" "${words[$((i + 1))]}"
            elif [[ "$w" == "$flag="* ]]; then
                printf '%s\n%s\n' "$flag" "${w#"$flag="}"
            fi
        done
    done
    return 0
}

# What the finished results file $1 cost, in USD: the runs that asked the
# model (a run answered wholly from the rerun cache cost nothing). The
# prices are the built-in ones and run-args' --pricing (an arena's own
# [pricing] table is not seen here). A failing report or jq fails the
# stage: a cap is never counted from a failed read.
spent_in() {
    [[ -s "$1" ]] || {
        printf '0'
        return 0
    }
    local flags=() line report spent
    while IFS= read -r line; do
        flags+=("$line")
    done < <(run_arg_flags --pricing)
    report="$("$TRIBUNAL" report "$1" ${flags[@]+"${flags[@]}"} --report json)" ||
        refuse "tribunal report of $(basename "$1") failed: the gate cannot count what was spent"
    spent="$(jq '[.items[] | select(.cache == null or .cache.misses > 0) | (.cost_usd // 0)] | add // 0' <<<"$report")" ||
        refuse "jq could not read the cost of $(basename "$1"): the gate cannot count what was spent"
    read_number "the cost of $(basename "$1")" "$spent"
}

# What this job's earlier processes spent: every results file so far.
spent_so_far() {
    local f total=0 s
    for f in "$TG_WORK"/head/*.jsonl "$TG_WORK"/base-run/*.jsonl "$TG_WORK"/head/*.shards/*.jsonl "$TG_WORK"/base-run/*.shards/*.jsonl; do
        [[ -f "$f" ]] || continue
        case "$f" in *.shards/*) [[ -f "${f%.shards/*}" ]] && continue ;; esac
        s="$(spent_in "$f")" || exit 2
        total="$(awk -v a="$total" -v b="$s" 'BEGIN { printf "%.10f", a + b }')"
    done
    printf '%s' "$total"
}

# The --max-cost-usd of each process about to start: what is left of the
# job's cap shared out over the $1 arena runs still to come (this one
# included; each its TG_SHARDS processes) — so the head never spends the
# share of a baseline that still has to run here ('' without a cap).
# Refuses when nothing is left.
process_cap() {
    [[ -n "$TG_MAX_COST_USD" ]] || return 0
    local spent left
    spent="$(spent_so_far)" || exit 2
    spent="$(read_number "what the job spent" "$spent")" || exit 2
    left="$(awk -v cap="$TG_MAX_COST_USD" -v s="$spent" -v n="$1" -v k="$TG_SHARDS" 'BEGIN { l = (cap - s) / (n * k); if (l <= 0) print "none"; else printf "%.10f", l }')"
    if [[ "$left" == "none" ]]; then
        printf 'spent\n' >"$TG_WORK/budget-spent"
        refuse "max-cost-usd $TG_MAX_COST_USD is spent (\$$(awk -v s="$spent" 'BEGIN { printf "%.6f", s }')) before every arena ran: raise the input max-cost-usd"
    fi
    printf '%s' "$left"
}

# run ARENA_DIR OUT.jsonl PENDING: one arena, in TG_SHARDS shard processes
# merged into OUT, each capped at its share of what is left of the job's
# cap (PENDING arena runs still to come, this one included). Its exit
# code: 1 when a run stopped starting item runs (--max-cost-usd,
# --fail-fast; FAILs do not: --min-pass-rate 0), 2 or more when it could
# not run.
run_arena() {
    local arena="$1" out="$2" pending="$3" flags=() extra=() line cap
    while IFS= read -r line; do
        flags+=("$line")
    done < <(backend_flags)
    read -r -a extra <<<"$TG_RUN_ARGS" || true
    cap="$(process_cap "$pending")" || exit 2
    [[ -z "$cap" ]] || extra+=(--max-cost-usd "$cap")
    mkdir -p "$(dirname "$out")"
    rm -f "$out"
    if [[ "$TG_SHARDS" -le 1 ]]; then
        run_tribunal run "$arena" ${flags[@]+"${flags[@]}"} ${extra[@]+"${extra[@]}"} --repeat "$TG_REPEATS" \
            --min-pass-rate 0 --out "$out" --report markdown --report-file "$out.md" || return $?
        return 0
    fi
    local shards="$out.shards" pids=() i code=0
    rm -rf "$shards"
    mkdir -p "$shards"
    for ((i = 1; i <= TG_SHARDS; i++)); do
        run_tribunal run "$arena" ${flags[@]+"${flags[@]}"} ${extra[@]+"${extra[@]}"} --repeat "$TG_REPEATS" \
            --min-pass-rate 0 --shard "$i/$TG_SHARDS" --out "$shards/" >"$shards/$i.log" 2>&1 &
        pids+=($!)
    done
    for ((i = 0; i < ${#pids[@]}; i++)); do
        wait "${pids[$i]}" || {
            local c=$?
            note "shard $((i + 1))/$TG_SHARDS of $arena exited $c (log below)"
            cat "$shards/$((i + 1)).log" >&2
            [[ $code -ge 2 ]] || code=$c
        }
    done
    [[ $code -le 1 ]] || return "$code"
    # merge refuses a missing shard (exit 8): the gate fails closed.
    "$TRIBUNAL" merge "$shards" --out "$out" --min-pass-rate 0 --report markdown --report-file "$out.md" || return $?
    return "$code"
}

# The `--items` and `--limit` of TG_RUN_ARGS, as check-baseline's flags.
selection_flags() {
    run_arg_flags --items --limit
}

# check-baseline RESULTS [more flags]: whether RESULTS may be a baseline of
# TG_REPEATS runs per item (tribunal github check-baseline); its stdout
# (fit=…, added-runs=…) goes to $TG_WORK/check.out, its reasons to the log.
check_baseline() {
    local results="$1"
    shift
    "$TRIBUNAL" github check-baseline --results "$results" --repeats "$TG_REPEATS" "$@" >"$TG_WORK/check.out"
}

# Whether file $1 is one the paths globs TG_PATHS match (a glob without a
# wildcard also matches everything under it as a folder).
matters() {
    local p
    for p in $TG_PATHS; do
        # shellcheck disable=SC2053 # $p is a glob on purpose
        if [[ "$1" == $p || "$1" == "${p%/}/"* ]]; then
            return 0
        fi
    done
    return 1
}

# With paths: whether this pull request changes none of them, said in
# $TG_WORK/skipped (the comment shows it). Both names of a renamed file
# count (--no-renames: moving a file out of paths changes paths). A pull
# request whose changed files cannot be listed runs. File names reach the
# log only through safe_name.
skip_unchanged() {
    [[ -n "$TG_PATHS" && -n "$TG_PR" && -n "${TG_BASE_SHA:-}" ]] || return 1
    set -f
    local files file hit=""
    if ! git cat-file -e "$TG_BASE_SHA^{commit}" 2>/dev/null; then
        git fetch --no-tags --depth=1 origin "$TG_BASE_SHA" >&2 2>&1 || true
    fi
    if ! files="$(git -c core.quotePath=false diff --no-renames --name-only "$TG_BASE_SHA" HEAD 2>/dev/null)"; then
        note "cannot list the files this pull request changes (base $TG_BASE_SHA): running the gate"
        set +f
        return 1
    fi
    while IFS= read -r file; do
        [[ -n "$file" ]] || continue
        if matters "$file"; then
            hit="$file"
            break
        fi
    done <<<"$files"
    set +f
    if [[ -n "$hit" ]]; then
        note "$(safe_name "$hit") is under paths: running the gate"
        return 1
    fi
    printf '%s\n' "$files" >"$TG_WORK/skipped"
    return 0
}

# The arenas of TG_ARENAS without a stored baseline in base/ (each runs
# here after the head, and keeps its share of the cap).
without_stored_baseline() {
    local arena n=0
    for arena in $TG_ARENAS; do
        [[ -f "$TG_WORK/base/$(slug "$arena").jsonl" ]] || n=$((n + 1))
    done
    printf '%s' "$n"
}

# run: each arena on this commit. On the baseline branch (kind baseline)
# the results are what the next step uploads as the baseline, so a run
# that stopped early or whose provider failed is refused here: nothing is
# stored. On a gate, a head run that stopped early is compared anyway
# (compare fails it: missing_runs).
stage_run() {
    begin run
    if skip_unchanged; then
        note "no file under paths ($TG_PATHS) changed: the arenas were not run"
        output skipped true
        finish
        return 0
    fi
    local arena out code left=0 base_runs=0 selection=() line
    for arena in $TG_ARENAS; do
        left=$((left + 1))
    done
    [[ "${TG_KIND:-}" != "gate" ]] || base_runs="$(without_stored_baseline)"
    while IFS= read -r line; do
        selection+=("$line")
    done < <(selection_flags)
    for arena in $TG_ARENAS; do
        out="$TG_WORK/head/$(slug "$arena").jsonl"
        code=0
        run_arena "$arena" "$out" $((left + base_runs)) || code=$?
        left=$((left - 1))
        if [[ "${TG_KIND:-}" == "baseline" ]]; then
            [[ $code -eq 0 ]] ||
                refuse "the baseline run of $arena exited $code (1: it stopped starting item runs, at --max-cost-usd or --fail-fast): an incomplete baseline is never stored"
            check_baseline "$out" --arena "$arena" ${selection[@]+"${selection[@]}"} ||
                refuse "the results of $arena are not a baseline (the reasons above): nothing is stored; run the baseline branch again when the provider answers"
        elif [[ $code -ne 0 ]]; then
            [[ $code -eq 1 ]] || exit "$code"
            note "the run of $arena stopped early (exit 1): its missing item runs fail the comparison"
        fi
    done
    [[ "${TG_KIND:-}" != "baseline" ]] || : >"$TG_WORK/baseline-checked"
    finish
}

# The baseline branch's commit: the checkout's own remote-tracking ref when
# it has one (a checkout with fetch-depth: 0 holds every branch, and with
# persist-credentials: false a private repository cannot be fetched
# again), else fetched.
baseline_commit() {
    local ref="refs/remotes/origin/$TG_BASELINE_BRANCH"
    if git rev-parse --verify --quiet "$ref^{commit}" >/dev/null; then
        printf '%s' "$ref"
        return 0
    fi
    git fetch --no-tags --depth=1 origin "$TG_BASELINE_BRANCH" >&2
    printf 'FETCH_HEAD'
}

# run-baseline: each arena without a fit stored baseline (none was found,
# the run has no secrets, the arena is newer than the stored baseline, or
# the stored one is short of the head's runs or holds the provider's
# failures), run here as it is on the baseline branch, in a worktree of
# it, with the same backend, model and flags. A run here that stopped
# early or whose provider failed fails the gate: it is never gated
# against. An arena not on the baseline branch is new.
stage_run_baseline() {
    [[ ! -f "$TG_WORK/skipped" ]] || return 0
    begin run-baseline
    local tree="$TG_WORK/baseline-tree" arena s code commit pending=0 selection=() line
    while IFS= read -r line; do
        selection+=("$line")
    done < <(selection_flags)
    for arena in $TG_ARENAS; do
        s="$(slug "$arena")"
        if [[ -f "$TG_WORK/base/$s.jsonl" ]]; then
            if check_baseline "$TG_WORK/base/$s.jsonl" --covers "$TG_WORK/head/$s.jsonl"; then
                continue
            fi
            note "the stored baseline of $arena (run ${TG_BASELINE_RUN:-?}) is not one to gate against (the reasons above): running it here instead"
            rm -f "$TG_WORK/base/$s.jsonl"
            mkdir -p "$TG_WORK/refused"
            : >"$TG_WORK/refused/$s"
        fi
        pending=$((pending + 1))
    done
    for arena in $TG_ARENAS; do
        s="$(slug "$arena")"
        [[ ! -f "$TG_WORK/base/$s.jsonl" ]] || continue
        if [[ ! -d "$tree" ]]; then
            commit="$(baseline_commit)" ||
                refuse "cannot fetch $TG_BASELINE_BRANCH to run its baseline here: check out with fetch-depth: 0 (a private repository checked out with persist-credentials: false cannot be fetched again)"
            git worktree add --detach "$tree" "$commit" >&2
        fi
        if [[ -d "$tree/$arena" ]]; then
            if [[ -f "$TG_WORK/refused/$s" ]]; then
                note "$arena: the stored baseline was refused: running it as it is on $TG_BASELINE_BRANCH"
            else
                note "$arena has no stored baseline: running it as it is on $TG_BASELINE_BRANCH"
            fi
            code=0
            run_arena "$tree/$arena" "$TG_WORK/base-run/$s.jsonl" "$pending" || code=$?
            pending=$((pending - 1))
            [[ $code -eq 0 ]] ||
                refuse "the baseline of $arena run here from $TG_BASELINE_BRANCH exited $code (1: it stopped starting item runs, at max-cost-usd or --fail-fast): a baseline short of its item runs is never gated against"
            check_baseline "$TG_WORK/base-run/$s.jsonl" --arena "$tree/$arena" \
                ${selection[@]+"${selection[@]}"} --covers "$TG_WORK/head/$s.jsonl" ||
                refuse "the baseline of $arena run here from $TG_BASELINE_BRANCH is not one to gate against (the reasons above): the gate fails"
            mkdir -p "$TG_WORK/base"
            cp "$TG_WORK/base-run/$s.jsonl" "$TG_WORK/base/$s.jsonl"
            # Complete for the baseline branch's arena: a head run it lacks
            # is of an item the change added.
            cp "$TG_WORK/check.out" "$TG_WORK/base/$s.run-here"
        else
            note "$arena is not on $TG_BASELINE_BRANCH: it is new, and gated on its own pass rate"
            mkdir -p "$TG_WORK/new"
            : >"$TG_WORK/new/$s"
        fi
    done
    finish
}

# --- compare, comment, verdict -----------------------------------------

# What the job spent, for the comment (to the millionth of a dollar).
spent_line() {
    local spent
    spent="$(spent_so_far)" || exit 2
    spent="$(awk -v s="$(read_number "what the job spent" "$spent")" 'BEGIN { printf "%.6f", s }')"
    if [[ -n "$TG_MAX_COST_USD" ]]; then
        printf 'Spent: $%s of max-cost-usd $%s (both sides, every arena and shard; runs answered from the rerun cache cost nothing).' "$spent" "$TG_MAX_COST_USD"
    else
        printf 'Spent: $%s (both sides, every arena and shard; runs answered from the rerun cache cost nothing).' "$spent"
    fi
}

# compare: one comment body, job summary section and HTML page per arena;
# the gate's exit code (the first failing arena's) goes to GITHUB_OUTPUT.
stage_compare() {
    if [[ -f "$TG_WORK/skipped" ]]; then
        output exit-code 0
        echo 0 >"$TG_WORK/exit-code"
        return 0
    fi
    begin compare
    local arena s base head code final=0 gate=() details=() notes=() secretless spent
    [[ -z "$TG_GATE" ]] || gate=(--gate "$TG_GATE")
    [[ -z "$TG_DETAILS_URL" ]] || details=(--details-url "$TG_DETAILS_URL")
    secretless="$(secretless_note)"
    [[ -z "$secretless" ]] || notes+=(--note "$secretless")
    spent="$(spent_line)" || exit 2
    notes+=(--note "$spent")
    mkdir -p "$TG_WORK/report" "$TG_WORK/comment"
    for arena in $TG_ARENAS; do
        s="$(slug "$arena")"
        base="$TG_WORK/base/$s.jsonl"
        head="$TG_WORK/head/$s.jsonl"
        code=0
        if [[ -f "$TG_WORK/new/$s" ]]; then
            # merge's Markdown puts every item id and detail in a code span
            # it cannot close (tribunal's one rule for model and dataset
            # text).
            "$TRIBUNAL" merge "$head" --min-pass-rate "$TG_NEW_ARENA_MIN_PASS_RATE" \
                --report markdown --report-file "$TG_WORK/comment/$s.report.md" >/dev/null || code=$?
            {
                if [[ $code -eq 0 ]]; then
                    printf '### ✅ tribunal: %s is new: it passes on its own\n\n' "$(md_code "$arena")"
                else
                    printf '### ❌ tribunal: %s is new: it fails on its own\n\n' "$(md_code "$arena")"
                fi
                printf '> It is not on %s, so there is nothing to compare it with: it is gated on its own pass rate, at least %s (the input new-arena-min-pass-rate).\n>\n> %s\n\n' \
                    "$(md_code "$TG_BASELINE_BRANCH")" "$TG_NEW_ARENA_MIN_PASS_RATE" "$spent"
                cat "$TG_WORK/comment/$s.report.md"
            } >"$TG_WORK/comment/$s.md"
        elif [[ -f "$base" ]]; then
            local where=() allow=()
            if [[ -f "$TG_WORK/base/$s.run-here" ]]; then
                if [[ -f "$TG_WORK/refused/$s" ]]; then
                    where=(--note "Baseline: run in this job from \`$TG_BASELINE_BRANCH\` (the stored results of run ${TG_BASELINE_RUN:-?} were refused: short of this change's item runs, or holding the provider's failures; the log says which).")
                else
                    where=(--note "Baseline: run in this job from \`$TG_BASELINE_BRANCH\` (no stored results of it were found, or the run has no secrets).")
                fi
                # check-baseline found it complete for the baseline
                # branch's arena: the head's runs it lacks are of items
                # this change added.
                allow=(--allow-new-runs)
            else
                where=(--note "Baseline: the results stored by run ${TG_BASELINE_RUN:-?} on \`$TG_BASELINE_BRANCH\`.")
            fi
            "$TRIBUNAL" compare "$base" "$head" ${gate[@]+"${gate[@]}"} --alpha "$TG_ALPHA" \
                ${allow[@]+"${allow[@]}"} --report comment "${where[@]}" "${notes[@]}" ${details[@]+"${details[@]}"} \
                --html "$TG_WORK/report/$s.compare.html" >"$TG_WORK/comment/$s.md" || code=$?
        else
            # Neither a baseline nor a new arena: run-baseline did not run.
            # Never a pass.
            printf '### ❌ tribunal: %s has no baseline\n\nThe baseline was neither found nor run; the gate fails.\n\n' "$(md_code "$arena")" >"$TG_WORK/comment/$s.md"
            code=2
        fi
        note "compare $arena: exit $code"
        cat "$TG_WORK/comment/$s.md" >>"$GITHUB_STEP_SUMMARY"
        if [[ $code -ne 0 && $final -eq 0 ]]; then
            final=$code
        fi
    done
    output exit-code "$final"
    echo "$final" >"$TG_WORK/exit-code"
    finish
}

# The comment's body files: the comparison, the skip, or why the gate did
# not finish (a failed step replaces an earlier push's verdict, never
# leaves it standing).
comment_bodies() {
    local arena file
    mkdir -p "$TG_WORK/comment"
    if [[ -f "$TG_WORK/skipped" ]]; then
        {
            printf '### ⏭️ tribunal: skipped, no change under `paths`\n\n'
            printf 'This pull request changes no file under the input paths (%s), so the arenas were **not run** and nothing was compared. Files changed:\n\n' "$(md_code "$TG_PATHS")"
            # A file name is the pull request's: a code span it cannot
            # close.
            sed -n '1,20p' "$TG_WORK/skipped" | while IFS= read -r file; do
                printf -- '- %s\n' "$(md_code "$file")"
            done
        } >"$TG_WORK/comment/skipped.md"
        printf '%s\n' "$TG_WORK/comment/skipped.md"
        return 0
    fi
    if [[ -f "$TG_WORK/exit-code" ]]; then
        for arena in $TG_ARENAS; do
            printf '%s\n' "$TG_WORK/comment/$(slug "$arena").md"
        done
        return 0
    fi
    local stage
    stage="$(cat "$TG_WORK/stage" 2>/dev/null || echo "an earlier step")"
    {
        printf '### ❌ tribunal: the gate did not finish\n\n'
        if [[ -f "$TG_WORK/budget-spent" ]]; then
            printf 'The job spent its max-cost-usd ($%s) before every arena ran; the gate fails. ' "$TG_MAX_COST_USD"
        fi
        printf 'The job failed in `%s` before it could compare, so this change has no verdict.' "$stage"
        [[ -z "$TG_DETAILS_URL" ]] || printf ' See [the run](%s).' "$TG_DETAILS_URL"
        printf '\n'
    } >"$TG_WORK/comment/unfinished.md"
    printf '%s\n' "$TG_WORK/comment/unfinished.md"
}

stage_comment() {
    if [[ "$TG_COMMENT" != "true" || -z "$TG_PR" ]]; then
        note "no comment (comment: $TG_COMMENT, pull request: '${TG_PR}')"
        return 0
    fi
    local files=() f
    while IFS= read -r f; do
        files+=(--body-file "$f")
    done < <(comment_bodies)
    if ! "$TRIBUNAL" github comment --pr "$TG_PR" --marker "$TG_NAME" "${files[@]}"; then
        if [[ "${TG_SECRETLESS:-false}" == "true" ]]; then
            # A fork's or Dependabot's pull request gets a read-only token:
            # the job summary keeps the comparison.
            note "could not comment (a pull request without secrets has a read-only token); see the job summary"
            return 0
        fi
        return 1
    fi
}

# verdict: the job's status is the gate's. It runs whatever kind setup
# gave (action.yml: `!cancelled()`), and fails on any kind but the two it
# knows, or on a kind its output and the job's environment disagree on: a
# skipped gate never ends green.
stage_verdict() {
    local kind="${TG_KIND_OUTPUT:-}" code
    [[ "$kind" == "${TG_KIND:-}" ]] ||
        refuse "setup's output kind '$(safe_name "$kind")' is not the kind it recorded ('$(safe_name "${TG_KIND:-}")'): the gate cannot tell what ran"
    case "$kind" in
        gate)
            code="$(cat "$TG_WORK/exit-code" 2>/dev/null || echo 2)"
            [[ "$code" =~ ^[0-9]+$ ]] || code=2
            if [[ "$code" -ne 0 ]]; then
                note "the gate failed (compare exit $code)"
            fi
            return "$code"
            ;;
        baseline)
            [[ -f "$TG_WORK/baseline-checked" ]] ||
                refuse "the baseline's results were not checked: nothing was stored"
            note "the baseline's results were checked and stored"
            ;;
        *) refuse "kind '$(safe_name "$kind")' is none the verdict knows (gate, baseline): the gate did not run" ;;
    esac
}

commands_off
trap commands_on EXIT
# The GitHub token only where GitHub is called (gh, `tribunal github`):
# any other stage's processes run without it, whatever the job's
# environment holds.
case "${1:-}" in
    install | find-baseline | comment) ;;
    *) unset GITHUB_TOKEN GH_TOKEN ;;
esac
case "${1:-}" in
    setup) stage_setup ;;
    install) stage_install ;;
    find-baseline) stage_find_baseline ;;
    run) stage_run ;;
    run-baseline) stage_run_baseline ;;
    compare) stage_compare ;;
    comment) stage_comment ;;
    verdict) stage_verdict ;;
    *)
        echo "usage: gate.sh setup|install|find-baseline|run|run-baseline|compare|comment|verdict" >&2
        exit 2
        ;;
esac
