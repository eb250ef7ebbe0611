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
#   TRIBUNAL            the tribunal binary (install sets it)
#   GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH, GITHUB_STEP_SUMMARY, GITHUB_TOKEN,
#   GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_SERVER_URL  as Actions sets them
set -euo pipefail

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
TRIBUNAL="${TRIBUNAL:-tribunal}"
GITHUB_OUTPUT="${GITHUB_OUTPUT:-/dev/null}"
GITHUB_STEP_SUMMARY="${GITHUB_STEP_SUMMARY:-/dev/null}"

# The events whose runs on the baseline branch store the baseline: the same
# list `tribunal github find-baseline` accepts a stored baseline from.
BASELINE_EVENTS="push schedule workflow_dispatch"

note() { printf 'tribunal gate: %s\n' "$*" >&2; }

# Stops the stage: the message, then exit 2 (a configuration the gate
# cannot gate with; the job fails).
refuse() {
    note "$*"
    printf '::error title=tribunal gate::%s\n' "$*" >&2
    exit 2
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

# Records that stage $1 began (the comment names a stage that never ended).
begin() {
    mkdir -p "$TG_WORK"
    printf '%s\n' "$1" >"$TG_WORK/stage"
}
finish() { rm -f "$TG_WORK/stage"; }

# --- setup -------------------------------------------------------------

# The mode of this run and what it gates on (README "The pull-request
# gate", the mode table). Prints "mode kind": kind gate compares this
# commit with the baseline branch's results, kind baseline stores them.
# A run the gate cannot gate refuses, naming the input that would make it.
decide_mode() {
    local secretless=false var
    var="$(key_var)"
    if [[ -n "$var" && -z "$(printenv "$var" || true)" ]]; then
        secretless=true
    fi
    case "$TG_MODE" in
        gate) printf 'gate gate' ;;
        baseline)
            one_of "$TG_EVENT" "$BASELINE_EVENTS" ||
                refuse "mode: baseline on a $TG_EVENT run: a baseline is taken only from push, schedule and workflow_dispatch runs (a pull request's run can upload anything); use mode: gate here"
            [[ "$TG_BRANCH" == "$TG_BASELINE_BRANCH" ]] ||
                refuse "mode: baseline on branch '$TG_BRANCH': pull requests look for baselines of '$TG_BASELINE_BRANCH' only; set baseline-branch: $TG_BRANCH, or run this on '$TG_BASELINE_BRANCH'"
            printf 'baseline baseline'
            ;;
        auto)
            case "$TG_EVENT" in
                pull_request)
                    [[ -n "$TG_PR" ]] || refuse "a pull_request run without a pull request number"
                    if [[ "$TG_FORK" == "true" ]]; then
                        printf 'fork-pr gate'
                    elif [[ "$secretless" == "true" ]]; then
                        printf 'no-secret-pr gate'
                    else
                        printf 'pr gate'
                    fi
                    ;;
                merge_group) printf 'merge-queue gate' ;;
                push | schedule | workflow_dispatch)
                    local name="$TG_EVENT"
                    [[ "$name" == "workflow_dispatch" ]] && name="dispatch"
                    if [[ "$TG_BRANCH" == "$TG_BASELINE_BRANCH" ]]; then
                        printf 'baseline baseline'
                    else
                        printf '%s gate' "$name"
                    fi
                    ;;
                pull_request_target)
                    refuse "event pull_request_target runs the base branch's workflow with its secrets, so the gate would compare the base with itself; run the gate on pull_request, or set the input mode: gate to compare the commit checked out here with '$TG_BASELINE_BRANCH'"
                    ;;
                *)
                    refuse "event '$TG_EVENT' has no rule of its own, so the gate cannot tell what to compare; set the input mode: gate to compare this commit with '$TG_BASELINE_BRANCH', or mode: baseline to store it as the baseline (push, schedule and workflow_dispatch runs on '$TG_BASELINE_BRANCH' only)"
                    ;;
            esac
            ;;
        *) refuse "mode '$TG_MODE' is not one of auto, gate, baseline" ;;
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

# setup: the mode, the working folder and the binary's cache key; every
# TG_* value goes to the job's environment (each with a random delimiter,
# so no input can set another variable).
stage_setup() {
    : "${TG_ARENAS:?TG_ARENAS: which arena(s) to run}"
    local temp="${TG_RUNNER_TEMP:-${RUNNER_TEMP:-/tmp}}"
    if [[ -z "$TG_BASELINE_BRANCH" ]]; then
        local merge_base="${TG_MERGE_BASE_REF:-}"
        TG_BASELINE_BRANCH="${TG_BASE_REF:-}"
        [[ -n "$TG_BASELINE_BRANCH" ]] || TG_BASELINE_BRANCH="${merge_base#refs/heads/}"
        [[ -n "$TG_BASELINE_BRANCH" ]] || TG_BASELINE_BRANCH="${TG_DEFAULT_BRANCH:-main}"
    fi
    local decided mode kind
    decided="$(decide_mode)" || exit $?
    mode="${decided% *}"
    kind="${decided#* }"
    TG_RUN_MODE="$mode"
    TG_SECRETLESS=false
    if [[ "$mode" == "fork-pr" || "$mode" == "no-secret-pr" ]]; then
        TG_SECRETLESS=true
    fi
    # Each use of the action in a job has its own folder.
    mkdir -p "$temp"
    TG_WORK="$(mktemp -d "$temp/tribunal-gate-$TG_NAME.XXXXXX")"
    TG_CACHE_DIR="$temp/tribunal-cache-$TG_NAME"
    TG_VERSION="$(wanted_version)" || exit $?
    TG_BIN_DIR="$temp/tribunal-bin-$TG_VERSION"
    TG_RELEASE_REPO="${TG_ACTION_REPOSITORY:-}"
    local var delim env_file="${GITHUB_ENV:-/dev/null}"
    for var in TG_ARENAS TG_BACKEND TG_MODEL TG_REPEATS TG_GATE TG_ALPHA TG_MAX_COST_USD \
        TG_CACHE TG_CACHE_DIR TG_SHARDS TG_REPLAY TG_RUN_ARGS TG_NAME TG_EVENT TG_PR TG_FORK \
        TG_BRANCH TG_BASELINE_BRANCH TG_BASE_SHA TG_COMMENT TG_WORK TG_DETAILS_URL TG_RUN_MODE \
        TG_SECRETLESS TG_PATHS TG_NEW_ARENA_MIN_PASS_RATE TG_VERSION TG_BIN_DIR TG_RELEASE_REPO; do
        delim="TG_EOF_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
        printf '%s<<%s\n%s\n%s\n' "$var" "$delim" "${!var:-}" "$delim" >>"$env_file"
    done
    local comment=false
    [[ -n "$TG_PR" && "$TG_COMMENT" == "true" && "$kind" == "gate" ]] && comment=true
    local stored=false
    [[ "$kind" == "gate" && "$TG_SECRETLESS" != "true" ]] && stored=true
    local model_key="${TG_MODEL//[^A-Za-z0-9._-]/_}"
    {
        echo "mode=$mode"
        echo "kind=$kind"
        echo "comment=$comment"
        echo "stored=$stored"
        echo "secretless=$TG_SECRETLESS"
        echo "work=$TG_WORK"
        echo "cache-dir=$TG_CACHE_DIR"
        echo "cache-key=tribunal-cache-$TG_NAME-$TG_BACKEND-$model_key-${TG_SHA:-none}"
        echo "cache-restore=tribunal-cache-$TG_NAME-$TG_BACKEND-$model_key-"
        echo "bin-dir=$TG_BIN_DIR"
        # Computed here, in a run step, from the ref read in this step's
        # env: inside the cache step's `with:` github.action_ref is the
        # cache action's own ref (tests/it/action_gate.rs cites the runner).
        echo "bin-key=tribunal-bin-${TG_RUNNER_OS:-$(uname -s)}-${TG_RUNNER_ARCH:-$(uname -m)}-$TG_VERSION"
        echo "version=$TG_VERSION"
    } >>"$GITHUB_OUTPUT"
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

# Whether the binary $1 says it is version $2 (a tag vX.Y.Z).
is_version() {
    local said
    said="$("$1" --version 2>/dev/null || true)"
    [[ "$said" == "tribunal ${2#v}" ]]
}

# Checks FILE against the SHA-256 file SUMS beside it.
check_sha256() {
    local dir="$1" sums="$2"
    if command -v sha256sum >/dev/null 2>&1; then
        (cd "$dir" && sha256sum -c "$sums")
    else
        (cd "$dir" && shasum -a 256 -c "$sums")
    fi
}

# install: the release binary of TG_VERSION for this machine (SHA-256
# checked, and its build attestation verified when `gh` is here), cached in
# TG_BIN_DIR only once its --version is TG_VERSION; a cached binary of any
# other version is thrown away. Without a release of that version (or
# with TG_VERSION 'source'), `cargo install --locked` of the action's
# source into a folder that is not cached.
stage_install() {
    local dir="${TG_BIN_DIR:?TG_BIN_DIR}" version="${TG_VERSION:?TG_VERSION}"
    local repo="${TG_RELEASE_REPO:-}" server="${GITHUB_SERVER_URL:-https://github.com}"
    local spec target ext exe
    spec="$(release_target)" || spec=""
    read -r target ext exe <<<"${spec:-- - tribunal}"
    if [[ "$version" != "source" && -x "$dir/$exe" ]]; then
        if is_version "$dir/$exe" "$version"; then
            note "tribunal from the cache: $("$dir/$exe" --version)"
            use_binary "$dir/$exe"
            return 0
        fi
        note "the cached binary says '$("$dir/$exe" --version 2>&1 || true)', not tribunal ${version#v}: replacing it"
        rm -rf "$dir"
    fi
    if [[ "$version" != "source" ]]; then
        [[ -n "$spec" ]] || refuse "no release binary for $(uname -s) $(uname -m): set the input version: source to build tribunal here"
        [[ -n "$repo" ]] || refuse "no repository to download tribunal $version from"
        local name="tribunal-${version}-${target}" tmp
        tmp="$(mktemp -d)"
        local url="$server/$repo/releases/download/$version/$name.$ext" code
        code="$(curl -sSL --retry 3 -o "$tmp/$name.$ext" -w '%{http_code}' "$url" || true)"
        if [[ "$code" == "200" ]]; then
            curl -fsSL --retry 3 -o "$tmp/$name.$ext.sha256" "$url.sha256" ||
                refuse "no checksum at $url.sha256: refusing $name.$ext"
            # A checksum that does not match is never run, and never
            # papered over by a build: it fails the job.
            check_sha256 "$tmp" "$name.$ext.sha256" >&2 ||
                refuse "the checksum of $name.$ext does not match $url.sha256: refusing it"
            if command -v gh >/dev/null 2>&1; then
                gh attestation verify "$tmp/$name.$ext" --repo "$repo" >&2 ||
                    refuse "the build attestation of $name.$ext does not verify (gh attestation verify --repo $repo): refusing it"
                note "the build attestation of $name.$ext verified (gh attestation verify)"
            else
                note "gh is not on this runner: the build attestation of $name.$ext is not verified (its SHA-256 is)"
            fi
            if [[ "$ext" == "zip" ]]; then
                (cd "$tmp" && unzip -q "$name.$ext")
            else
                tar -xzf "$tmp/$name.$ext" -C "$tmp"
            fi
            is_version "$tmp/$name/$exe" "$version" ||
                refuse "$name.$ext holds '$("$tmp/$name/$exe" --version 2>&1 || true)', not tribunal ${version#v}: refusing it"
            mkdir -p "$dir"
            cp "$tmp/$name/$exe" "$dir/$exe"
            chmod 0755 "$dir/$exe"
            note "installed the release binary $name (SHA-256 checked)"
            use_binary "$dir/$exe"
            return 0
        fi
        [[ "$code" == "404" ]] || refuse "downloading $url failed (HTTP ${code:-none})"
        note "no release $version at $url: building the action's source instead"
    fi
    local src="${TG_SOURCE:-${TG_ACTION_PATH:-${GITHUB_ACTION_PATH:-.}}/..}"
    local build="${TG_RUNNER_TEMP:-${RUNNER_TEMP:-/tmp}}/tribunal-build"
    cargo install --locked --root "$build" --path "$src" --bin tribunal
    if [[ "$version" != "source" ]] && ! is_version "$build/bin/$exe" "$version"; then
        refuse "the action's source builds '$("$build/bin/$exe" --version)', not tribunal ${version#v}: set the input version to a release tag that exists"
    fi
    use_binary "$build/bin/$exe"
}

# The later steps run binary $1.
use_binary() {
    local bin="$1" delim
    delim="TG_EOF_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
    printf 'TRIBUNAL<<%s\n%s\n%s\n' "$delim" "$bin" "$delim" >>"${GITHUB_ENV:-/dev/null}"
    dirname "$bin" >>"${GITHUB_PATH:-/dev/null}"
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

# What kind of run the secret rules made of this one, for the comment.
secretless_note() {
    [[ "${TG_SECRETLESS:-false}" == "true" && "$TG_BACKEND" != "mock" ]] || return 0
    local who
    if [[ "${TG_RUN_MODE:-}" == "fork-pr" ]]; then
        who="Pull request from a fork: repository secrets are not given to it"
    else
        who="Pull request without secrets (\`$(key_var)\` is empty here, as for Dependabot's)"
    fi
    if [[ -n "$TG_REPLAY" ]]; then
        printf '%s, so both sides replayed the cassettes in %s instead of calling %s.' "$who" "$TG_REPLAY" "$TG_BACKEND"
    else
        printf '%s, so both sides ran the mock instead of %s.' "$who" "$TG_BACKEND"
    fi
}

# The --pricing of TG_RUN_ARGS, as flags for `tribunal report` (the prices
# the runs were capped at; an arena's own [pricing] table is not seen here).
pricing_flags() {
    local words=() i
    read -r -a words <<<"$TG_RUN_ARGS" || true
    for ((i = 0; i < ${#words[@]}; i++)); do
        case "${words[$i]}" in
            --pricing) [[ $((i + 1)) -lt ${#words[@]} ]] && printf '%s\n' --pricing "${words[$((i + 1))]}" ;;
            --pricing=*) printf '%s\n' "${words[$i]}" ;;
        esac
    done
    return 0
}

# What the finished results file $1 cost, in USD: the runs that asked the
# model (a run answered wholly from the rerun cache cost nothing).
spent_in() {
    [[ -s "$1" ]] || {
        printf '0'
        return 0
    }
    local flags=() line
    while IFS= read -r line; do
        flags+=("$line")
    done < <(pricing_flags)
    "$TRIBUNAL" report "$1" ${flags[@]+"${flags[@]}"} --report json |
        jq '[.items[] | select(.cache == null or .cache.misses > 0) | (.cost_usd // 0)] | add // 0'
}

# What this job's earlier processes spent: every results file so far.
spent_so_far() {
    local f total=0 s
    for f in "$TG_WORK"/head/*.jsonl "$TG_WORK"/base-run/*.jsonl "$TG_WORK"/head/*.shards/*.jsonl "$TG_WORK"/base-run/*.shards/*.jsonl; do
        [[ -f "$f" ]] || continue
        case "$f" in *.shards/*) [[ -f "${f%.shards/*}" ]] && continue ;; esac
        s="$(spent_in "$f")"
        total="$(awk -v a="$total" -v b="$s" 'BEGIN { printf "%.10f", a + b }')"
    done
    printf '%s' "$total"
}

# The --max-cost-usd of each of $1 processes about to start: what is left
# of the job's cap, shared out ('' without a cap). Refuses when nothing is
# left.
process_cap() {
    [[ -n "$TG_MAX_COST_USD" ]] || return 0
    local spent left
    spent="$(spent_so_far)"
    left="$(awk -v cap="$TG_MAX_COST_USD" -v s="$spent" -v n="$1" 'BEGIN { l = (cap - s) / n; if (l <= 0) print "none"; else printf "%.10f", l }')"
    if [[ "$left" == "none" ]]; then
        printf 'spent\n' >"$TG_WORK/budget-spent"
        refuse "max-cost-usd $TG_MAX_COST_USD is spent (\$$(awk -v s="$spent" 'BEGIN { printf "%.6f", s }')) before every arena ran: raise the input max-cost-usd"
    fi
    printf '%s' "$left"
}

# run ARENA_DIR OUT.jsonl: one arena, in TG_SHARDS shard processes merged
# into OUT, each capped at its share of what is left of the job's cap.
# Exit 2 (a usage or configuration error) stops the gate; FAILs do not
# (the comparison gates on them).
run_arena() {
    local arena="$1" out="$2" flags=() extra=() line cap
    while IFS= read -r line; do
        flags+=("$line")
    done < <(backend_flags)
    read -r -a extra <<<"$TG_RUN_ARGS" || true
    cap="$(process_cap "$TG_SHARDS")" || exit $?
    [[ -z "$cap" ]] || extra+=(--max-cost-usd "$cap")
    mkdir -p "$(dirname "$out")"
    rm -f "$out"
    if [[ "$TG_SHARDS" -le 1 ]]; then
        "$TRIBUNAL" run "$arena" ${flags[@]+"${flags[@]}"} ${extra[@]+"${extra[@]}"} --repeat "$TG_REPEATS" \
            --min-pass-rate 0 --out "$out" --report markdown --report-file "$out.md" || {
            local code=$?
            note "run of $arena exited $code"
            [[ $code -eq 1 ]] || return "$code"
        }
        return 0
    fi
    local shards="$out.shards" pids=() i code=0
    rm -rf "$shards"
    mkdir -p "$shards"
    for ((i = 1; i <= TG_SHARDS; i++)); do
        "$TRIBUNAL" run "$arena" ${flags[@]+"${flags[@]}"} ${extra[@]+"${extra[@]}"} --repeat "$TG_REPEATS" \
            --min-pass-rate 0 --shard "$i/$TG_SHARDS" --out "$shards/" >"$shards/$i.log" 2>&1 &
        pids+=($!)
    done
    for ((i = 0; i < ${#pids[@]}; i++)); do
        wait "${pids[$i]}" || {
            local c=$?
            note "shard $((i + 1))/$TG_SHARDS of $arena exited $c (log below)"
            cat "$shards/$((i + 1)).log" >&2
            [[ $c -eq 1 ]] || code=$c
        }
    done
    [[ $code -eq 0 ]] || return "$code"
    # merge refuses a missing shard (exit 8): the gate fails closed.
    "$TRIBUNAL" merge "$shards" --out "$out" --min-pass-rate 0 --report markdown --report-file "$out.md"
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
# $TG_WORK/skipped (the comment shows it). A pull request whose changed
# files cannot be listed runs.
skip_unchanged() {
    [[ -n "$TG_PATHS" && -n "$TG_PR" && -n "${TG_BASE_SHA:-}" ]] || return 1
    set -f
    local files file hit=""
    if ! git cat-file -e "$TG_BASE_SHA^{commit}" 2>/dev/null; then
        git fetch --no-tags --depth=1 origin "$TG_BASE_SHA" >&2 2>&1 || true
    fi
    if ! files="$(git diff --name-only "$TG_BASE_SHA" HEAD 2>/dev/null)"; then
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
        note "$hit is under paths: running the gate"
        return 1
    fi
    printf '%s\n' "$files" >"$TG_WORK/skipped"
    return 0
}

stage_run() {
    begin run
    if skip_unchanged; then
        note "no file under paths ($TG_PATHS) changed: the arenas were not run"
        echo "skipped=true" >>"$GITHUB_OUTPUT"
        finish
        return 0
    fi
    local arena
    for arena in $TG_ARENAS; do
        run_arena "$arena" "$TG_WORK/head/$(slug "$arena").jsonl"
    done
    finish
}

# run-baseline: each arena without a stored baseline (none was found, the
# run has no secrets, or the arena is newer than the stored baseline), run
# here as it is on the baseline branch, in a worktree of it, with the same
# backend, model and flags. An arena not on the baseline branch is new.
stage_run_baseline() {
    [[ ! -f "$TG_WORK/skipped" ]] || return 0
    begin run-baseline
    local tree="$TG_WORK/baseline-tree" arena s
    for arena in $TG_ARENAS; do
        s="$(slug "$arena")"
        [[ ! -f "$TG_WORK/base/$s.jsonl" ]] || continue
        if [[ ! -d "$tree" ]]; then
            git fetch --no-tags --depth=1 origin "$TG_BASELINE_BRANCH" >&2
            git worktree add --detach "$tree" FETCH_HEAD >&2
        fi
        if [[ -d "$tree/$arena" ]]; then
            note "$arena has no stored baseline: running it as it is on $TG_BASELINE_BRANCH"
            run_arena "$tree/$arena" "$TG_WORK/base-run/$s.jsonl"
            mkdir -p "$TG_WORK/base"
            cp "$TG_WORK/base-run/$s.jsonl" "$TG_WORK/base/$s.jsonl"
            : >"$TG_WORK/base/$s.run-here"
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
    spent="$(awk -v s="$(spent_so_far)" 'BEGIN { printf "%.6f", s }')"
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
        echo "exit-code=0" >>"$GITHUB_OUTPUT"
        echo 0 >"$TG_WORK/exit-code"
        return 0
    fi
    begin compare
    local arena s base head code final=0 gate=() details=() notes=() secretless spent
    [[ -z "$TG_GATE" ]] || gate=(--gate "$TG_GATE")
    [[ -z "$TG_DETAILS_URL" ]] || details=(--details-url "$TG_DETAILS_URL")
    secretless="$(secretless_note)"
    [[ -z "$secretless" ]] || notes+=(--note "$secretless")
    spent="$(spent_line)"
    notes+=(--note "$spent")
    mkdir -p "$TG_WORK/report" "$TG_WORK/comment"
    for arena in $TG_ARENAS; do
        s="$(slug "$arena")"
        base="$TG_WORK/base/$s.jsonl"
        head="$TG_WORK/head/$s.jsonl"
        code=0
        if [[ -f "$TG_WORK/new/$s" ]]; then
            "$TRIBUNAL" merge "$head" --min-pass-rate "$TG_NEW_ARENA_MIN_PASS_RATE" \
                --report markdown --report-file "$TG_WORK/comment/$s.report.md" >/dev/null || code=$?
            {
                if [[ $code -eq 0 ]]; then
                    printf '### ✅ tribunal: `%s` is new: it passes on its own\n\n' "$arena"
                else
                    printf '### ❌ tribunal: `%s` is new: it fails on its own\n\n' "$arena"
                fi
                printf '> It is not on `%s`, so there is nothing to compare it with: it is gated on its own pass rate, at least %s (the input new-arena-min-pass-rate).\n>\n> %s\n\n' \
                    "$TG_BASELINE_BRANCH" "$TG_NEW_ARENA_MIN_PASS_RATE" "$spent"
                cat "$TG_WORK/comment/$s.report.md"
            } >"$TG_WORK/comment/$s.md"
        elif [[ -f "$base" ]]; then
            local where=()
            if [[ -f "$TG_WORK/base/$s.run-here" ]]; then
                where=(--note "Baseline: run in this job from \`$TG_BASELINE_BRANCH\` (no stored results of it were found, or the run has no secrets).")
            else
                where=(--note "Baseline: the results stored by run ${TG_BASELINE_RUN:-?} on \`$TG_BASELINE_BRANCH\`.")
            fi
            "$TRIBUNAL" compare "$base" "$head" ${gate[@]+"${gate[@]}"} --alpha "$TG_ALPHA" \
                --report comment "${where[@]}" "${notes[@]}" ${details[@]+"${details[@]}"} \
                --html "$TG_WORK/report/$s.compare.html" >"$TG_WORK/comment/$s.md" || code=$?
        else
            # Neither a baseline nor a new arena: run-baseline did not run.
            # Never a pass.
            printf '### ❌ tribunal: `%s` has no baseline\n\nThe baseline was neither found nor run; the gate fails.\n\n' "$arena" >"$TG_WORK/comment/$s.md"
            code=2
        fi
        note "compare $arena: exit $code"
        cat "$TG_WORK/comment/$s.md" >>"$GITHUB_STEP_SUMMARY"
        if [[ $code -ne 0 && $final -eq 0 ]]; then
            final=$code
        fi
    done
    echo "exit-code=$final" >>"$GITHUB_OUTPUT"
    echo "$final" >"$TG_WORK/exit-code"
    finish
}

# The comment's body files: the comparison, the skip, or why the gate did
# not finish (a failed step replaces an earlier push's verdict, never
# leaves it standing).
comment_bodies() {
    local arena
    mkdir -p "$TG_WORK/comment"
    if [[ -f "$TG_WORK/skipped" ]]; then
        {
            printf '### ⏭️ tribunal: skipped, no change under `paths`\n\n'
            printf 'This pull request changes no file under the input paths (`%s`), so the arenas were **not run** and nothing was compared. Files changed:\n\n' "$TG_PATHS"
            sed -n '1,20s/^\(.*\)$/- `\1`/p' "$TG_WORK/skipped"
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

# verdict: the job's status is the gate's.
stage_verdict() {
    local code
    code="$(cat "$TG_WORK/exit-code" 2>/dev/null || echo 2)"
    if [[ "$code" -ne 0 ]]; then
        note "the gate failed (compare exit $code)"
    fi
    return "$code"
}

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
