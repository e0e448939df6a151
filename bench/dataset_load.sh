#!/usr/bin/env bash
# Measures loading the committed dataset artifact the way the server does
# (`Artifact::load`): wall time of the load and the process's peak RSS.
# Goal: under 1 s and under 300 MB on the project's reference machine.
set -euo pipefail
cd "$(dirname "$0")/.."
artifact="${1:-data/manabi-dataset.jsonl.zst}"
cargo build -q --release -p manabi-dataset --bin manabi-dataset
for run in 1 2 3; do
    ./target/release/manabi-dataset stats --json --artifact "$artifact" > var/dataset-load.json
    python3 - "$run" <<'PY'
import json, sys
load = json.load(open("var/dataset-load.json"))["load"]
print(f"run {sys.argv[1]}: load {load['ms']:.0f} ms, peak RSS {load['peak_rss_kb'] / 1024:.0f} MB")
PY
done
