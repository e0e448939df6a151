#!/usr/bin/env bash
# Localized-read benchmark of the embedded default with the embedded translation engine
# (the English→Portuguese model that scripts/test also uses), in one run:
#   generation: the first keyed GET ?locale=pt of BENCH_PER_TYPE entries of every type
#       (and of lessons), one at a time: each one generates, stores and charges 25; the
#       latency p50/p99 per type is what a first caller waits;
#   (a) wrk on a keyless English GET /api/v1/learnables/{id} of a sample entry,
#   (d) wrk on the keyless GET of the same entry ?locale=pt once generated: the cached
#       localized read (free for the sample, like (a)), goal (d) >= 0.8 x (a).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

connections=${BENCH_CONNECTIONS:-64}
duration=${BENCH_SECONDS:-20}
threads=${BENCH_THREADS:-2}
per_type=${BENCH_PER_TYPE:-15}

command -v wrk >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
. scripts/lib/translation-models.sh
ensure_translation_models var/translation-models

if [ -n "${BENCH_BINARY:-}" ]; then
    binary=$(realpath "$BENCH_BINARY")
else
    cargo build --release --quiet --bin manabi
    binary=target/release/manabi
fi

mkdir -p var
work=$(mktemp -d var/bench-localized.XXXXXX)
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

artifact=data/manabi-dataset.jsonl.zst
export MANABI_DATABASE_URL="sqlite://$PWD/$work/var/ledger.sqlite"
mkdir -p "$work/var"
MANABI_BIND=127.0.0.1:0 MANABI_DATA_DIR="$work/var" MANABI_ARTIFACT="$artifact" \
    MANABI_KEYLESS_RATE_PER_SEC=0 MANABI_KEY_RATE_PER_SEC=0 MANABI_LOG=warn \
    MANABI_TRANSLATION_MODELS="$PWD/var/translation-models" \
    MANABI_TRANSLATION_TIMEOUT_MS=60000 MANABI_REQUEST_TIMEOUT_MS=90000 \
    "$binary" serve >"$work/server.stdout" 2>"$work/server.stderr" &
server_pid=$!
wait_ready server "$server_pid"

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
account=$("$binary" admin account create --email bench@example.com | json '["account_id"]')
"$binary" admin topup --account "$account" --points 10000000 --idempotency-key bench-1 >/dev/null
"$binary" admin caps set --account "$account" --daily-calls 10000000 >/dev/null
key=$("$binary" admin key create --account "$account" | json '["api_key"]')

# --- generation latency per type ----------------------------------------------------
python3 - "$artifact" "$base" "$key" "$per_type" "$work/sample_id" <<'PY'
import json, random, subprocess, sys, time, urllib.request
artifact, base, key, per_type, sample_out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
lines = subprocess.run(["zstd", "-dcq", artifact], capture_output=True, check=True).stdout.decode().splitlines()
by_type, sample = {}, None
for line in lines:
    record = json.loads(line)
    if record.get("t") == "learnable":
        kind = record["doc"]["type"]
        by_type.setdefault(kind, []).append(("learnables", record["doc"]["id"]))
        if sample is None and record["sample"] and kind == "grammar":
            sample = record["doc"]["id"]
    elif record.get("t") == "lesson":
        by_type.setdefault("lesson", []).append(("lessons", record["id"]))
random.seed(20261125)
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
print(f"\ngeneration with the embedded engine (en→pt), {per_type} random entries per type, one at a time")
print(f"{'type':12} {'n':>4} {'p50 ms':>9} {'p99 ms':>9} {'max ms':>9}  charged")
for kind in sorted(by_type):
    chosen = random.sample(by_type[kind], min(per_type, len(by_type[kind])))
    times, charged = [], set()
    for path, entry in chosen:
        request = urllib.request.Request(f"{base}/api/v1/{path}/{entry}?locale=pt",
                                         headers={"Authorization": f"Bearer {key}"})
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=120) as answer:
            body = json.load(answer)
        times.append((time.perf_counter() - started) * 1000)
        charged.add(body["billing"]["points_charged"])
    print(f"{kind:12} {len(times):>4} {pct(times, 50):>9.1f} {pct(times, 99):>9.1f} {max(times):>9.1f}  {sorted(charged)}")
open(sample_out, "w").write(sample)
PY
id=$(cat "$work/sample_id")
curl -fsS -H "Authorization: Bearer $key" "$base/api/v1/learnables/$id?locale=pt" >/dev/null

# --- cached localized read vs English read ------------------------------------------
run() { wrk -t"$threads" -c"$connections" -d"${duration}s" --latency "$2" >"$work/$1.wrk"; }
run english "$base/api/v1/learnables/$id"
run localized "$base/api/v1/learnables/$id?locale=pt"

printf '\nkeyless reads of %s, %d connections, %d s each, %d wrk threads, %d cores\n' \
    "$id" "$connections" "$duration" "$threads" "$(nproc)"
printf '%-34s %12s %10s %10s\n' "target" "req/s" "p50 ms" "p99 ms"
printf '%-34s %12s %10s %10s\n' "(a) English read" "$(field_rps english)" "$(field_pct english 50)" "$(field_pct english 99)"
printf '%-34s %12s %10s %10s\n' "(d) cached localized read (pt)" "$(field_rps localized)" "$(field_pct localized 50)" "$(field_pct localized 99)"
failed=
for name in english localized; do
    if [ -n "$(errors "$name")" ]; then errors "$name"; failed=1; fi
done
python3 - "$(field_rps english)" "$(field_rps localized)" <<'PY'
import sys
english, localized = map(float, sys.argv[1:])
ratio = localized / english
print(f"\n(d) / (a) req/s >= 0.8       {ratio:10.2f}  {'met' if ratio >= 0.8 else 'MISSED'}")
PY
if [ -n "$failed" ]; then echo "FAILED: non-2xx answers or socket errors" >&2; exit 1; fi
