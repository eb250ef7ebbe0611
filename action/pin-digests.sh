#!/usr/bin/env bash
# Pins a release's archives in action/digests.txt, the SHA-256 digests the
# action (gate.sh install) checks every archive it runs against:
#
#   bash action/pin-digests.sh vX.Y.Z SHA256SUMS           append to digests.txt
#   bash action/pin-digests.sh --print vX.Y.Z SHA256SUMS   print the lines
#
# SHA256SUMS is the release's (`sha256sum` lines, "<hex>  tribunal-vX.Y.Z-
# <target>.<tar.gz|zip>"): release.yml attaches it, and prints these lines
# in its summary. After a release: download SHA256SUMS, verify its archives'
# attestations (docs/ci-gate.md "Releasing"), run this, and commit
# action/digests.txt; the commit is the one users pin the action at. A
# target already pinned for the tag with another digest is refused: a
# release's archives never change.
set -euo pipefail

print=false
if [[ "${1:-}" == "--print" ]]; then
    print=true
    shift
fi
tag="${1:?usage: pin-digests.sh [--print] vX.Y.Z SHA256SUMS}"
sums="${2:?usage: pin-digests.sh [--print] vX.Y.Z SHA256SUMS}"
[[ "$tag" =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] || {
    echo "pin-digests: '$tag' is not a release tag (vX.Y.Z)" >&2
    exit 2
}
digests="$(dirname "$0")/digests.txt"

lines=""
while read -r hex file; do
    [[ -n "${hex:-}" ]] || continue
    file="${file#\*}"
    case "$file" in
        "tribunal-$tag-"*.tar.gz) target="${file#"tribunal-$tag-"}" target="${target%.tar.gz}" ;;
        "tribunal-$tag-"*.zip) target="${file#"tribunal-$tag-"}" target="${target%.zip}" ;;
        *)
            echo "pin-digests: $file is not an archive of tribunal $tag" >&2
            exit 2
            ;;
    esac
    if [[ ${#hex} -ne 64 || "$hex" == *[!0-9a-f]* ]]; then
        echo "pin-digests: the digest of $file is not a SHA-256 in hex" >&2
        exit 2
    fi
    lines+="$tag $target $hex"$'\n'
done <"$sums"
[[ -n "$lines" ]] || {
    echo "pin-digests: $sums names no archive" >&2
    exit 2
}

if [[ "$print" == "true" ]]; then
    printf '%s' "$lines"
    exit 0
fi
while read -r _ target hex; do
    [[ -n "${target:-}" ]] || continue
    pinned="$(awk -v v="$tag" -v t="$target" '$1 == v && $2 == t { print $3; exit }' "$digests")"
    if [[ -n "$pinned" && "$pinned" != "$hex" ]]; then
        echo "pin-digests: $tag $target is pinned as $pinned already, not $hex: a release's archives never change" >&2
        exit 1
    fi
    [[ -n "$pinned" ]] || printf '%s %s %s\n' "$tag" "$target" "$hex" >>"$digests"
done <<<"$lines"
echo "pin-digests: $digests pins tribunal $tag" >&2
