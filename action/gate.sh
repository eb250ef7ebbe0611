#!/usr/bin/env bash
# The steps of the pull-request gate (action.yml beside this file), one
# stage per call: `gate.sh STAGE`. action.yml maps its inputs to the TG_*
# variables below; tests/it/action_gate.rs runs these stages against a
# stand-in GitHub API. Everything the gate does to GitHub goes through
# `tribunal github …`; no stage prints a secret.
#
# Inputs (environment):
#   TG_ARENAS           arena folders, whitespace-separated (required)
#   TG_BACKEND          mock | openai-chat | openai-responses | anthropic (default mock)
#   TG_MODEL            the model (live backends)
#   TG_REPEATS          runs per item (default 1)
#   TG_GATE             any | significant | '' (compare's default: any for mock
#                       and replayed results, significant for live ones)
#   TG_ALPHA            the significance level (default 0.05)
#   TG_MAX_COST_USD     stop starting runs past this cost ('' = no limit)
#   TG_CACHE            true: answer repeated requests from the rerun cache
#   TG_CACHE_DIR        where the rerun cache lives (action.yml caches it)
#   TG_SHARDS           shard processes per arena in this job (default 1)
#   TG_REPLAY           a cassette folder: what a fork's pull request replays
#   TG_RUN_ARGS         more `tribunal run` flags, whitespace-separated
#   TG_NAME             the gate's name: artifact names and the comment's key
#   TG_EVENT            the GitHub event (pull_request, push, …)
#   TG_PR               the pull request's number ('' outside one)
#   TG_FORK             true when the pull request comes from a fork
#   TG_BRANCH           the branch this run is on (push events)
#   TG_BASELINE_BRANCH  the branch the baseline comes from
#   TG_BASELINE_FOUND   true when the baseline artifact was downloaded
#   TG_BASELINE_RUN     the run id it came from
#   TG_COMMENT          true: post or update the pull request comment
#   TG_WORK             the gate's working folder
#   TG_DETAILS_URL      the run's page, linked from the comment
#   TRIBUNAL            the tribunal binary (default: tribunal on PATH)
#   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_TOKEN, GITHUB_API_URL,
#   GITHUB_REPOSITORY   as GitHub Actions sets them
set -euo pipefail

: "${TG_ARENAS:?TG_ARENAS: which arena(s) to run}"
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
TG_EVENT="${TG_EVENT:-pull_request}"
TG_PR="${TG_PR:-}"
TG_FORK="${TG_FORK:-false}"
TG_BASELINE_BRANCH="${TG_BASELINE_BRANCH:-main}"
TG_BASELINE_FOUND="${TG_BASELINE_FOUND:-false}"
TG_COMMENT="${TG_COMMENT:-true}"
TG_WORK="${TG_WORK:-${RUNNER_TEMP:-/tmp}/tribunal-gate}"
TG_CACHE_DIR="${TG_CACHE_DIR:-$TG_WORK/cache}"
TG_DETAILS_URL="${TG_DETAILS_URL:-}"
TRIBUNAL="${TRIBUNAL:-tribunal}"
GITHUB_OUTPUT="${GITHUB_OUTPUT:-/dev/null}"
GITHUB_STEP_SUMMARY="${GITHUB_STEP_SUMMARY:-/dev/null}"

# The results of arena folder $1 are <slug>.jsonl: its path with '/' as '-'.
slug() {
    local s="${1%/}"
    s="${s#./}"
    printf '%s' "${s//\//-}"
}

note() { printf 'tribunal gate: %s\n' "$*" >&2; }

# Whether this is a run on the baseline branch that stores the baseline.
is_baseline_run() {
    [[ "$TG_EVENT" == "push" || "$TG_EVENT" == "schedule" || "$TG_EVENT" == "workflow_dispatch" ]] &&
        [[ "${TG_BRANCH:-}" == "$TG_BASELINE_BRANCH" ]]
}

# The backend flags of this run. A fork's pull request has no secrets: it
# replays TG_REPLAY when given, else runs the mock.
backend_flags() {
    if [[ "$TG_FORK" == "true" && "$TG_BACKEND" != "mock" ]]; then
        if [[ -n "$TG_REPLAY" ]]; then
            printf '%s\n' --backend "$TG_BACKEND" --model "$TG_MODEL" --replay "$TG_REPLAY"
        fi
        return
    fi
    if [[ "$TG_BACKEND" != "mock" ]]; then
        printf '%s\n' --backend "$TG_BACKEND"
        [[ -n "$TG_MODEL" ]] && printf '%s\n' --model "$TG_MODEL"
        if [[ "$TG_CACHE" == "true" ]]; then
            printf '%s\n' --cache "$TG_CACHE_DIR"
        fi
    fi
    return 0
}

# What kind of run the fork rules made of this one, for the comment.
fork_note() {
    if [[ "$TG_FORK" == "true" && "$TG_BACKEND" != "mock" ]]; then
        if [[ -n "$TG_REPLAY" ]]; then
            printf 'Pull request from a fork: repository secrets are not given to it, so both sides replayed the cassettes in %s instead of calling %s.' "$TG_REPLAY" "$TG_BACKEND"
        else
            printf 'Pull request from a fork: repository secrets are not given to it, so both sides ran the mock instead of %s.' "$TG_BACKEND"
        fi
    fi
}

# run ARENA_DIR OUT.jsonl: one arena, in TG_SHARDS shard processes merged
# into OUT. Exit 2 (a usage or configuration error) stops the gate; FAILs
# do not (the comparison gates on them).
run_arena() {
    local arena="$1" out="$2" flags=() extra=()
    mapfile -t flags < <(backend_flags)
    read -r -a extra <<<"$TG_RUN_ARGS"
    [[ -n "$TG_MAX_COST_USD" ]] && extra+=(--max-cost-usd "$TG_MAX_COST_USD")
    mkdir -p "$(dirname "$out")"
    rm -f "$out"
    if [[ "$TG_SHARDS" -le 1 ]]; then
        "$TRIBUNAL" run "$arena" "${flags[@]}" "${extra[@]}" --repeat "$TG_REPEATS" \
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
        "$TRIBUNAL" run "$arena" "${flags[@]}" "${extra[@]}" --repeat "$TG_REPEATS" \
            --min-pass-rate 0 --shard "$i/$TG_SHARDS" --out "$shards/" >"$shards/$i.log" 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do
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

# setup: the inputs become the job's TG_* variables (each written with a
# random delimiter, so no input can set another variable), and the mode.
stage_setup() {
    local var delim mode="pull_request"
    local env_file="${GITHUB_ENV:-/dev/null}"
    for var in TG_ARENAS TG_BACKEND TG_MODEL TG_REPEATS TG_GATE TG_ALPHA TG_MAX_COST_USD \
        TG_CACHE TG_CACHE_DIR TG_SHARDS TG_REPLAY TG_RUN_ARGS TG_NAME TG_EVENT TG_PR TG_FORK \
        TG_BRANCH TG_BASELINE_BRANCH TG_COMMENT TG_WORK TG_DETAILS_URL; do
        delim="TG_EOF_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
        printf '%s<<%s\n%s\n%s\n' "$var" "$delim" "${!var:-}" "$delim" >>"$env_file"
    done
    if is_baseline_run; then
        mode="baseline"
    elif [[ -z "$TG_PR" ]]; then
        mode="run"
    fi
    echo "mode=$mode" >>"$GITHUB_OUTPUT"
    note "mode $mode (event $TG_EVENT, baseline branch $TG_BASELINE_BRANCH)"
}

# install: the release binary of the action's own tag, checked against its
# SHA-256, else `cargo install --locked` of the action's own source.
# TG_BIN_DIR: where it goes; TG_VERSION: the release tag ('' = build);
# TG_RELEASE_REPO: the repository whose releases hold it.
stage_install() {
    local dir="${TG_BIN_DIR:?TG_BIN_DIR}" version="${TG_VERSION:-}"
    local repo="${TG_RELEASE_REPO:-}" server="${GITHUB_SERVER_URL:-https://github.com}"
    if [[ -x "$dir/tribunal" ]]; then
        note "tribunal from the cache: $("$dir/tribunal" --version)"
        return 0
    fi
    mkdir -p "$dir"
    local target
    case "$(uname -m)" in
        x86_64 | amd64) target="x86_64-unknown-linux-gnu" ;;
        aarch64 | arm64) target="aarch64-unknown-linux-gnu" ;;
        *) target="" ;;
    esac
    if [[ "$version" == v* && -n "$repo" && -n "$target" && "$(uname -s)" == "Linux" ]]; then
        local name="tribunal-${version}-${target}" tmp
        tmp="$(mktemp -d)"
        local url="$server/$repo/releases/download/$version/$name.tar.gz"
        if curl -fsSL --retry 3 -o "$tmp/$name.tar.gz" "$url" &&
            curl -fsSL --retry 3 -o "$tmp/$name.tar.gz.sha256" "$url.sha256"; then
            # A checksum that does not match is never run, and never papered
            # over by a build: it fails the job.
            if ! (cd "$tmp" && sha256sum -c "$name.tar.gz.sha256"); then
                note "the checksum of $name.tar.gz does not match $url.sha256: refusing it"
                return 1
            fi
            tar -xzf "$tmp/$name.tar.gz" -C "$tmp"
            install -m 0755 "$tmp/$name/tribunal" "$dir/tribunal"
            note "installed the release binary $name (SHA-256 checked)"
            return 0
        fi
        note "no release binary at $url: building from source instead"
    else
        note "no release tag to download (version '${version}'): building from source"
    fi
    local src="${TG_SOURCE:-${GITHUB_ACTION_PATH:-.}/..}"
    cargo install --locked --root "$dir/cargo" --path "$src" --bin tribunal
    install -m 0755 "$dir/cargo/bin/tribunal" "$dir/tribunal"
}

stage_run() {
    local arena
    for arena in $TG_ARENAS; do
        run_arena "$arena" "$TG_WORK/head/$(slug "$arena").jsonl"
    done
}

# Runs the baseline here: the arenas as they are on the baseline branch,
# in a worktree of it, with the same backend, model and flags.
stage_run_baseline() {
    local tree="$TG_WORK/baseline-tree" arena
    if [[ ! -d "$tree" ]]; then
        git fetch --no-tags --depth=1 origin "$TG_BASELINE_BRANCH"
        git worktree add --detach "$tree" FETCH_HEAD
    fi
    for arena in $TG_ARENAS; do
        if [[ -d "$tree/$arena" ]]; then
            run_arena "$tree/$arena" "$TG_WORK/base/$(slug "$arena").jsonl"
        else
            note "$arena is not on $TG_BASELINE_BRANCH: it has no baseline"
        fi
    done
}

# compare: one comment body, job summary section and HTML page per arena;
# the gate's exit code (the first failing arena's) goes to GITHUB_OUTPUT.
stage_compare() {
    local arena s base head code final=0 notes=() gate=()
    [[ -n "$TG_GATE" ]] && gate=(--gate "$TG_GATE")
    local fork
    fork="$(fork_note)"
    if [[ "$TG_FORK" == "true" && "$TG_BACKEND" != "mock" ]]; then
        notes+=(--note "$fork")
    fi
    if [[ "$TG_BASELINE_FOUND" == "true" ]]; then
        notes+=(--note "Baseline: the results stored by run ${TG_BASELINE_RUN:-?} on \`$TG_BASELINE_BRANCH\`.")
    else
        notes+=(--note "Baseline: run in this job from \`$TG_BASELINE_BRANCH\` (no stored results of it were found).")
    fi
    local details=()
    [[ -n "$TG_DETAILS_URL" ]] && details=(--details-url "$TG_DETAILS_URL")
    mkdir -p "$TG_WORK/report" "$TG_WORK/comment"
    for arena in $TG_ARENAS; do
        s="$(slug "$arena")"
        base="$TG_WORK/base/$s.jsonl"
        head="$TG_WORK/head/$s.jsonl"
        if [[ ! -f "$base" ]]; then
            printf '### tribunal: `%s` has no baseline\n\nIt is not on `%s` yet; this change runs it first. Its own report is in the job summary.\n\n' \
                "$arena" "$TG_BASELINE_BRANCH" >"$TG_WORK/comment/$s.md"
            cat "$TG_WORK/comment/$s.md" >>"$GITHUB_STEP_SUMMARY"
            [[ -f "$head.md" ]] && cat "$head.md" >>"$GITHUB_STEP_SUMMARY"
            continue
        fi
        code=0
        "$TRIBUNAL" compare "$base" "$head" "${gate[@]}" --alpha "$TG_ALPHA" \
            --report comment "${notes[@]}" "${details[@]}" \
            --html "$TG_WORK/report/$s.compare.html" >"$TG_WORK/comment/$s.md" || code=$?
        note "compare $arena: exit $code"
        cat "$TG_WORK/comment/$s.md" >>"$GITHUB_STEP_SUMMARY"
        if [[ $code -ne 0 && $final -eq 0 ]]; then
            final=$code
        fi
    done
    echo "exit-code=$final" >>"$GITHUB_OUTPUT"
    echo "$final" >"$TG_WORK/exit-code"
}

stage_comment() {
    if [[ "$TG_COMMENT" != "true" || -z "$TG_PR" ]]; then
        note "no comment (comment: $TG_COMMENT, pull request: '${TG_PR}')"
        return 0
    fi
    local files=() arena
    for arena in $TG_ARENAS; do
        files+=(--body-file "$TG_WORK/comment/$(slug "$arena").md")
    done
    if ! "$TRIBUNAL" github comment --pr "$TG_PR" --marker "$TG_NAME" "${files[@]}"; then
        if [[ "$TG_FORK" == "true" ]]; then
            # A fork's pull request gets a read-only token: the job summary
            # keeps the comparison.
            note "could not comment on a fork's pull request (read-only token); see the job summary"
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
    run) stage_run ;;
    run-baseline) stage_run_baseline ;;
    compare) stage_compare ;;
    comment) stage_comment ;;
    verdict) stage_verdict ;;
    *)
        echo "usage: gate.sh setup|install|run|run-baseline|compare|comment|verdict" >&2
        exit 2
        ;;
esac
