#!/usr/bin/env bash
# Search engine micro-benchmark: µs per search for a mix of ~20 queries (romaji, kana,
# kanji, English, prefixes, typos) against the full index (callers with a key) and the
# sample index (keyless callers), in process, one thread, no HTTP. Also prints the build
# time and the size of each index's typo table. Run it under the benchmark lock:
#   flock /tmp/bench.lock bash bench/search_engine.sh [artifact]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet -p manabi-search --example search_engine -- "$@"
