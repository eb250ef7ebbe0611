#!/usr/bin/env bash
# Fetches the real-world schema corpus (SchemaStore's catalog at a fixed
# commit) into a folder and runs the schema survey over it (BENCHMARKS.md,
# "Real-world schemas"). The schemas are not in this repository: SchemaStore
# is Apache-2.0, but its schemas come from many projects under their own terms.
#
#   bash bench/schema-corpus.sh [FOLDER]    (default: target/schema-corpus)
set -euo pipefail
commit=3b6446ad8a077bac56f4a4796c0b7fd88927fc8e
dir=${1:-target/schema-corpus}
if [ ! -d "$dir/schemastore" ]; then
  git clone --filter=blob:none --no-checkout https://github.com/SchemaStore/schemastore "$dir/schemastore"
  git -C "$dir/schemastore" checkout "$commit" -- src/schemas/json
fi
mkdir -p "$dir/json"
cp "$dir"/schemastore/src/schemas/json/*.json "$dir/json/"
TRIBUNAL_SCHEMA_CORPUS="$dir/json" cargo test -p tribunal-runtime --test it schema_corpus \
  -- --ignored --nocapture
