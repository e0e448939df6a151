#!/usr/bin/env bash
# Billed read benchmark: wrk (64 connections, 20 s each) against keyed
# GET /api/v1/learnables/{id} (1 point per call, charged durably; 100 funded accounts
# with one key each, rotated by a wrk Lua script) and against keyless reads of the same
# endpoint in the same run, on the embedded SQLite ledger and on PostgreSQL; then pgbench
# with bench/billed_pg_naive.sql (one guarded debit + one event insert per transaction)
# on the same PostgreSQL. Key and keyless rate limits are off. One table: req/s, p50,
# p99, server RSS, and the goal ratios (billed >= 0.5 x keyless on both backends;
# billed on PostgreSQL >= 1.0 x the pgbench naive ceiling).
#
# PostgreSQL: MANABI_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/test); the
# ledger goes to a fresh schema, dropped at the end. On PostgreSQL the projector runs as
# its own `manabi projector` process during the run, as in production.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

connections=${BENCH_CONNECTIONS:-64}
duration=${BENCH_SECONDS:-20}
threads=${BENCH_THREADS:-2}
accounts=${BENCH_ACCOUNTS:-100}
pg_url=${MANABI_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}

need=()
command -v wrk >/dev/null || need+=(wrk)
command -v pgbench >/dev/null || need+=(postgresql-contrib)
command -v psql >/dev/null || need+=(postgresql-client)
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# BENCH_BINARY runs another build of manabi (e.g. the one before a change) instead.
if [ -n "${BENCH_BINARY:-}" ]; then
    binary=$(realpath "$BENCH_BINARY")
else
    cargo build --release --quiet --bin manabi
    binary=$PWD/target/release/manabi
fi
artifact=${MANABI_ARTIFACT:-data/manabi-dataset.jsonl.zst}

work=$(mktemp -d "${TMPDIR:-/tmp}/manabi-bench-billed.XXXXXX")
schema="bench_billed_$(date +%s)_$$"
server_pid=
projector_pid=
stop() { # pid...
    for pid in "$@"; do
        if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    done
}
cleanup() {
    stop "$server_pid" "$projector_pid"
    psql "$pg_url" -q -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

admin() { MANABI_DATABASE_URL="$ledger_url" MANABI_LOG=warn "$binary" admin "$@"; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

# 100 accounts with ample points, caps out of the way, one key each (keys to a file).
fund_accounts() {
    : >"$work/keys"
    for n in $(seq 1 "$accounts"); do
        account=$(admin account create --email "bench-$n@example.com" | json '["account_id"]')
        admin topup --account "$account" --points 100000000 --idempotency-key "bench-$n" >/dev/null
        admin caps set --account "$account" --daily-calls 100000000 >/dev/null
        created=$(admin key create --account "$account" --name bench)
        key_id=$(echo "$created" | json '["key_id"]')
        admin caps set --account "$account" --key-id "$key_id" --daily-calls 100000000 >/dev/null
        echo "$created" | json '["api_key"]' >>"$work/keys"
    done
}

start_server() { # log name
    MANABI_BIND=127.0.0.1:0 MANABI_DATA_DIR="$work/var" MANABI_ARTIFACT="$artifact" \
        MANABI_DATABASE_URL="$ledger_url" MANABI_KEY_RATE_PER_SEC=0 \
        MANABI_KEYLESS_RATE_PER_SEC=0 MANABI_LOG=warn \
        "$binary" serve >"$work/$1.stdout" 2>"$work/$1.stderr" &
    server_pid=$!
    wait_ready "$1" "$server_pid"
}

cat >"$work/keys.lua" <<'LUA'
-- Each wrk thread rotates over every key, starting at a different one.
local threads = 0
function setup(thread)
    thread:set("offset", threads * 37)
    threads = threads + 1
end
local keys = {}
for line in io.lines(os.getenv("BENCH_KEYS")) do keys[#keys + 1] = line end
local next_key = 0
function init(args)
    next_key = (offset or 0) % #keys
end
request = function()
    next_key = next_key % #keys + 1
    return wrk.format("GET", nil, { ["X-API-Key"] = keys[next_key] })
end
LUA

run() { # name url [lua]
    local script=()
    [ -n "${3:-}" ] && script=(-s "$3")
    BENCH_KEYS="$work/keys" wrk -t"$threads" -c"$connections" -d"${duration}s" --latency \
        "${script[@]}" "$2" >"$work/$1.wrk"
    awk '/^Requests\/sec:/ {print $2}' "$work/$1.wrk" >"$work/$1.rps"
    # wrk prints latencies as 1.23ms / 456.78us / 1.02s; keep them in ms.
    for p in 50 99; do
        awk -v p="$p%" '$1 == p { v=$2;
            if (v ~ /us$/) { sub(/us$/, "", v); v=v/1000 }
            else if (v ~ /ms$/) { sub(/ms$/, "", v) }
            else if (v ~ /s$/) { sub(/s$/, "", v); v=v*1000 }
            printf "%.2f", v }' "$work/$1.wrk" >"$work/$1.p$p"
    done
    grep -E 'Non-2xx|Socket errors' "$work/$1.wrk" >"$work/$1.errors" || true
    # Answers wrk counted; 2xx ones are those less the non-2xx.
    local total non2xx
    total=$(awk '/requests in/ {print $1}' "$work/$1.wrk")
    non2xx=$(awk '/Non-2xx/ {print $NF}' "$work/$1.wrk")
    echo $((total - ${non2xx:-0})) >"$work/$1.ok"
}

# CallCharged events in the ledger at $ledger_url.
count_charges() {
    case $ledger_url in
        sqlite://*) python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(
            "SELECT count(*) FROM events WHERE event_type = '"'"'CallCharged'"'"'").fetchone()[0])' \
            "${ledger_url#sqlite://}" ;;
        *) psql "$pg_url" -tA -c "SELECT count(*) FROM $schema.events WHERE event_type = 'CallCharged'" ;;
    esac
}

rss_of() { awk '/^VmHWM/ {print int($2 / 1024)}' "/proc/$1/status"; }

bench_backend() { # name
    local name=$1
    fund_accounts
    start_server "$name"
    if [ "$name" = postgres ]; then
        MANABI_DATABASE_URL="$ledger_url" MANABI_LOG=warn "$binary" projector \
            >"$work/projector.stdout" 2>"$work/projector.stderr" &
        projector_pid=$!
    fi
    id=${BENCH_ID:-$(curl -fsS "$base/api/v1/learnables?query=%E6%97%A5&limit=1" \
        | sed -n 's/.*"results":\[{"id":"\([^"]*\)".*/\1/p')}
    url="$base/api/v1/learnables/$(python3 -c 'import sys,urllib.parse;print(urllib.parse.quote(sys.argv[1]))' "$id")"
    curl -fsS -H "X-API-Key: $(head -1 "$work/keys")" "$url" | grep -q '"invoice_id":"' \
        || { echo "a keyed read did not carry an invoice" >&2; exit 1; }
    run "$name-keyed" "$url" "$work/keys.lua"
    run "$name-keyless" "$url"
    rss_of "$server_pid" >"$work/$name.rss"
    stop "$server_pid"
    server_pid=
    # Every 2xx keyed answer is one charge, plus the check above; requests still in
    # flight when wrk stopped (at most one per connection) may be charged unanswered.
    local charged answered
    charged=$(count_charges)
    answered=$(cat "$work/$name-keyed.ok")
    echo "$charged charges for $answered 2xx keyed answers (+1 check)" >"$work/$name.charges"
    if [ "$charged" -lt $((answered + 1)) ] || [ "$charged" -gt $((answered + 1 + connections)) ]; then
        echo "FAILED: $name: $charged charges for $answered 2xx keyed answers" >&2
        exit 1
    fi
    charges=$(admin ledger verify --catch-up | json '["events_replayed"]')
    echo "$charges" >"$work/$name.events"
    stop "$server_pid" "$projector_pid"
    server_pid=
    projector_pid=
}

# --- SQLite (embedded default) ------------------------------------------------------
ledger_url="sqlite://$work/sqlite/ledger.sqlite"
bench_backend sqlite

# --- PostgreSQL ------------------------------------------------------------------------
psql "$pg_url" -q -v ON_ERROR_STOP=1 -c "CREATE SCHEMA $schema" >/dev/null
sep='?'; case $pg_url in *\?*) sep='&' ;; esac
ledger_url="$pg_url${sep}options[search_path]=$schema"
bench_backend postgres

# --- pgbench naive ceiling on the same PostgreSQL ------------------------------------------
sed -n 's/^--setup //p' bench/billed_pg_naive.sql | psql "$pg_url" -q -v ON_ERROR_STOP=1 >/dev/null
(cd "$work" && pgbench "$pg_url" -n -c "$connections" -j "$threads" -T "$duration" -l \
    --log-prefix=pgbench -f "$OLDPWD/bench/billed_pg_naive.sql" >"$work/pgbench.out" 2>&1)
psql "$pg_url" -q -c "DROP TABLE IF EXISTS naive_events, naive_balances" >/dev/null

# --- durable-commit latency: no billed answer can come sooner ---------------------------
# A billed call is answered after its charge is durable, so with C connections each
# waiting for its answer, billed req/s <= C / commit latency (Little's law), however
# the charges are batched. Measured here: one 4 KiB write + fsync on the SQLite
# ledger's filesystem, and one single-row committed insert on the same PostgreSQL.
python3 - "$work/fsync.probe" >"$work/sqlite.commit_ms" <<'PY'
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)
rounds = 300
started = time.perf_counter()
for n in range(rounds):
    os.pwrite(fd, b"x" * 4096, (n % 16) * 4096)
    os.fsync(fd)
print(f"{(time.perf_counter() - started) / rounds * 1000:.2f}")
os.close(fd)
os.unlink(sys.argv[1])
PY
psql "$pg_url" -q -c "CREATE TABLE IF NOT EXISTS bench_commit_probe (n int)" >/dev/null
echo "INSERT INTO bench_commit_probe VALUES (1);" >"$work/commit_probe.sql"
pgbench "$pg_url" -n -c 1 -T 3 -f "$work/commit_probe.sql" 2>/dev/null \
    | awk '/latency average/ {print $4}' >"$work/postgres.commit_ms"
psql "$pg_url" -q -c "DROP TABLE IF EXISTS bench_commit_probe" >/dev/null

# --- table ---------------------------------------------------------------------------
printf '\nmanabi billed benchmark: %d connections, %d s each, %d wrk threads, %d cores, %d keys\n' \
    "$connections" "$duration" "$threads" "$(nproc)" "$accounts"
printf 'read: GET /api/v1/learnables/%s; artifact %s\n\n' "$id" "$artifact"
BENCH_CONNECTIONS=$connections python3 - "$work" <<'PY'
import glob, os, re, statistics, sys
work = sys.argv[1]
def read(name, default="0"):
    path = os.path.join(work, name)
    return open(path).read().strip() if os.path.exists(path) else default
rows = []
for backend in ("sqlite", "postgres"):
    for kind in ("keyed", "keyless"):
        name = f"{backend}-{kind}"
        rows.append((f"{backend} {'billed (keyed)' if kind == 'keyed' else 'keyless'}",
                     float(read(name + ".rps")), read(name + ".p50"), read(name + ".p99"),
                     read(backend + ".rss"), read(name + ".errors", "")))
latencies = []
for log in glob.glob(os.path.join(work, "pgbench.*")):
    if log.endswith(".out"):
        continue
    for line in open(log):
        parts = line.split()
        if len(parts) >= 3:
            latencies.append(int(parts[2]) / 1000.0)
tps = re.search(r"tps = ([0-9.]+)", read("pgbench.out", ""))
latencies.sort()
pct = lambda p: latencies[min(len(latencies) - 1, int(len(latencies) * p))] if latencies else 0
rows.append(("pgbench naive ceiling", float(tps.group(1)) if tps else 0.0,
             f"{pct(0.50):.2f}", f"{pct(0.99):.2f}", "-", ""))
print(f"{'target':34} {'req/s':>10} {'p50 ms':>8} {'p99 ms':>8} {'peak RSS MB':>12}")
for label, rps, p50, p99, rss, errors in rows:
    print(f"{label:34} {rps:10.0f} {p50:>8} {p99:>8} {rss:>12}")
    if errors:
        print("    " + errors.replace("\n", "\n    "))
rps = {row[0]: row[1] for row in rows}
goals = [
    ("sqlite billed / keyless >= 0.5", rps["sqlite billed (keyed)"] / rps["sqlite keyless"], 0.5),
    ("postgres billed / keyless >= 0.5", rps["postgres billed (keyed)"] / rps["postgres keyless"], 0.5),
    ("postgres billed / pgbench >= 1.0",
     rps["postgres billed (keyed)"] / max(rps["pgbench naive ceiling"], 1e-9), 1.0),
]
connections = int(os.environ.get("BENCH_CONNECTIONS", "64"))
print()
for backend in ("sqlite", "postgres"):
    commit_ms = float(read(backend + ".commit_ms", "0") or 0)
    if commit_ms > 0:
        ceiling = connections / (commit_ms / 1000)
        keyless = rps[f"{backend} keyless"]
        print(f"{backend} durable commit {commit_ms:.2f} ms: at {connections} connections "
              f"billed <= {ceiling:.0f} req/s = {ceiling / keyless:.2f} x keyless; "
              f"measured billed = {rps[f'{backend} billed (keyed)'] / ceiling:.2f} x that ceiling")
print()
for name, value, floor in goals:
    print(f"{name:36} {value:6.2f}  {'met' if value >= floor else 'MISSED'}")
print(f"\nledger events after the runs: sqlite {read('sqlite.events')}, "
      f"postgres {read('postgres.events')} (ledger verify --catch-up passed)")
for backend in ("sqlite", "postgres"):
    print(f"{backend}: {read(backend + '.charges', '?')}")
PY

# A run with a failed answer measured something else than the read it names.
if cat "$work"/*.errors 2>/dev/null | grep -q .; then
    echo "FAILED: non-2xx answers or socket errors (listed under their rows above)" >&2
    exit 1
fi
