#!/usr/bin/env bash
# Read benchmark of the embedded default: wrk (64 connections, 20 s each) against
#   (a) a keyless GET /api/v1/learnables/{id},
#   (b) searches over the full index (every entry, what paying callers search), with
#       the varied queries of the relevance suite (tests/relevance/queries.tsv, every
#       script, romaji spelling, English, grammar, names, typos) in turn,
#   (b2) a full-index search for a misspelled word (BENCH_TYPO_QUERY, default
#        `mountian`; empty skips it): the typo-tolerant path,
#   (c) nginx serving the identical JSON body of (a) as a static file,
# all in one run on this machine, then a table with req/s, p50, p99, the server's RSS,
# its ready time and the goal ratios: (a) >= 0.8 x (c) with p99 <= 5 ms,
# (b) >= 0.5 x (a) with p99 <= 5 ms, ready <= 1 s, RSS <= 300 MB.
#
# A keyed search is billed, and billing (a ledger append per call) would be what (b)
# measured. So (b) asks a second server whose artifact marks every entry as part of the
# evaluation sample: its keyless searches walk an index of every entry, built by the
# same code as the full index, without the ledger in the way.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

connections=${BENCH_CONNECTIONS:-64}
duration=${BENCH_SECONDS:-20}
threads=${BENCH_THREADS:-2}
typo_query=${BENCH_TYPO_QUERY-mountian}

need=()
command -v wrk >/dev/null || need+=(wrk)
command -v zstd >/dev/null || need+=(zstd)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

# BENCH_BINARY runs another build of manabi (e.g. the one before a change) instead.
if [ -n "${BENCH_BINARY:-}" ]; then
    binary=$(realpath "$BENCH_BINARY")
else
    cargo build --release --quiet --bin manabi
    binary=target/release/manabi
fi

work=$(mktemp -d var/bench.XXXXXX)
server_pid=
full_pid=
nginx_started=
cleanup() {
    for pid in $server_pid $full_pid; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    if [ -n "$nginx_started" ]; then "$nginx_bin" -p "$PWD/$work" -c nginx.conf -s stop 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

artifact=data/manabi-dataset.jsonl.zst
if [ ! -f "$artifact" ]; then
    echo "no committed artifact; benchmarking the test fixture" >&2
    artifact="$work/fixture.jsonl.zst"
    MANABI_FIXTURE_OUT="$PWD/$artifact" cargo test --quiet -p manabi-tests --test http_reads \
        write_fixture_artifact -- --ignored >/dev/null
fi

# --- the server, keyless limit off -------------------------------------------------
start_serve() { # name artifact: starts a server, waits for /readyz; sets pid and base
    MANABI_BIND=127.0.0.1:0 MANABI_DATA_DIR="$work/var-$1" MANABI_ARTIFACT="$2" \
        MANABI_KEYLESS_RATE_PER_SEC=0 MANABI_LOG=warn \
        "$binary" serve >"$work/$1.stdout" 2>"$work/$1.stderr" &
    pid=$!
    wait_ready "$1" "$pid"
}
started_ns=$(date +%s%N)
start_serve read "$artifact"
server_pid=$pid
ready_ms=$(( ($(date +%s%N) - started_ns) / 1000000 ))
internal_ready_ms=$(sed -n 's/.*"ready_after_ms":\([0-9]*\).*/\1/p' "$work/read.readyz")
learnables=$(sed -n 's/.*"learnables":\([0-9]*\).*/\1/p' "$work/read.readyz")

# --- the full-index server: the same artifact with every entry in the sample ----------
zstd -dcq "$artifact" | sed 's/^{"t":"learnable","sample":false,/{"t":"learnable","sample":true,/' \
    | zstd -q -o "$work/all-sample.jsonl.zst"
read_base=$base
start_serve full "$work/all-sample.jsonl.zst"
full_pid=$pid
full_base=$base
base=$read_base
full_learnables=$(sed -n 's/.*"learnables":\([0-9]*\).*/\1/p' "$work/full.readyz")

# The suite's queries as request paths, taken in turn by each wrk connection.
python3 - tests/relevance/queries.tsv "$work/queries.lua" <<'PY'
import sys, urllib.parse
paths = []
for line in open(sys.argv[1], encoding="utf-8").read().splitlines()[1:]:
    if not line.strip() or line.startswith("#"):
        continue
    category, query, kind = line.split("\t")[:3]
    params = {"query": query}
    if kind != "-":
        params["type"] = kind
    paths.append("/api/v1/learnables?" + urllib.parse.urlencode(params))
with open(sys.argv[2], "w") as out:
    out.write("local paths = {\n")
    for path in paths:
        out.write(f"  {path!r},\n".replace("'", '"'))
    out.write("}\nlocal at = 0\n")
    out.write("request = function()\n  at = at % #paths + 1\n")
    out.write("  return wrk.format(\"GET\", paths[at])\nend\n")
print(f"{len(paths)} search queries", file=sys.stderr)
PY

id=${BENCH_ID:-$(curl -fsS "$base/api/v1/learnables?query=%E6%97%A5&limit=1" \
    | sed -n 's/.*"results":\[{"id":"\([^"]*\)".*/\1/p')}
[ -n "$id" ] || { echo "no sample entry found to read" >&2; exit 1; }
read_url="$base/api/v1/learnables/$(python3 -c 'import sys,urllib.parse;print(urllib.parse.quote(sys.argv[1]))' "$id")"
search_url="$full_base/api/v1/learnables"
typo_url="$full_base/api/v1/learnables?query=$typo_query"
curl -fsS "$read_url" >"$work/body.json"

# --- nginx with the identical body ---------------------------------------------------
mkdir -p "$work/html" "$work/logs"
cp "$work/body.json" "$work/html/entry.json"
nginx_port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
cat >"$work/nginx.conf" <<NGINX
$( [ "$(id -u)" = 0 ] && echo "user root;" )
worker_processes auto;
pid $PWD/$work/nginx.pid;
error_log $PWD/$work/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $PWD/$work/tmp_body;
    proxy_temp_path $PWD/$work/tmp_proxy;
    fastcgi_temp_path $PWD/$work/tmp_fastcgi;
    uwsgi_temp_path $PWD/$work/tmp_uwsgi;
    scgi_temp_path $PWD/$work/tmp_scgi;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$nginx_port;
        location = /entry.json { root $PWD/$work/html; default_type application/json; }
    }
}
NGINX
"$nginx_bin" -p "$PWD/$work" -c nginx.conf
nginx_started=1
nginx_url="http://127.0.0.1:$nginx_port/entry.json"
cmp -s "$work/body.json" <(curl -fsS "$nginx_url") || { echo "nginx body differs" >&2; exit 1; }

# --- runs ----------------------------------------------------------------------------
run() { # name url [lua script]
    wrk -t"$threads" -c"$connections" -d"${duration}s" --latency ${3:+-s "$3"} "$2" >"$work/$1.wrk"
}
failed_runs=()

run read "$read_url"
run search "$search_url" "$work/queries.lua"
if [ -n "$typo_query" ]; then run typo "$typo_url"; fi
run nginx "$nginx_url"

rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$server_pid/status")
hwm_kb=$(awk '/^VmHWM/ {print $2}' "/proc/$server_pid/status")

printf '\nmanabi read benchmark: %s learnables (%s), %d connections, %d s each, %d wrk threads, %d cores\n' \
    "$learnables" "$artifact" "$connections" "$duration" "$threads" "$(nproc)"
printf 'read: %s   body: %s bytes\n' "$read_url" "$(wc -c <"$work/body.json")"
printf 'search: %s learnables in the index, %s queries of tests/relevance/queries.tsv in turn\n\n' \
    "$full_learnables" "$(grep -c '^  "' "$work/queries.lua")"
printf '%-34s %12s %10s %10s\n' "target" "req/s" "p50 ms" "p99 ms"
names="read search"
if [ -n "$typo_query" ]; then names="$names typo"; fi
for name in $names nginx; do
    case $name in
        read) label="(a) keyless learnable read" ;;
        search) label="(b) full-index search, varied" ;;
        typo) label="(b2) full-index search $typo_query" ;;
        nginx) label="(c) nginx static, same body" ;;
    esac
    printf '%-34s %12s %10s %10s\n' "$label" "$(field_rps $name)" "$(field_pct $name 50)" "$(field_pct $name 99)"
    if [ -n "$(errors "$name")" ]; then
        errors "$name"
        failed_runs+=("$name")
    fi
done
read_rps=$(field_rps read); search_rps=$(field_rps search); nginx_rps=$(field_rps nginx)
read_p99=$(field_pct read 99); search_p99=$(field_pct search 99)
full_hwm_kb=$(awk '/^VmHWM/ {print $2}' "/proc/$full_pid/status")
printf '\nserver RSS %d MB (peak %d MB); ready after %d ms (server-side %s ms)\n' \
    $((rss_kb / 1024)) $((hwm_kb / 1024)) "$ready_ms" "${internal_ready_ms:-?}"
printf 'full-index server (two indexes of every entry) peak RSS %d MB\n' $((full_hwm_kb / 1024))
python3 - "$read_rps" "$search_rps" "$nginx_rps" "$read_p99" "$ready_ms" "$hwm_kb" "$search_p99" <<'PY'
import sys
read, search, nginx, p99, ready_ms, hwm_kb, search_p99 = map(float, sys.argv[1:])
goals = [
    ("(a) / (c) req/s >= 0.8", read / nginx, read / nginx >= 0.8),
    ("(a) p99 <= 5 ms", p99, p99 <= 5.0),
    ("(b) / (a) req/s >= 0.5", search / read, search / read >= 0.5),
    ("(b) p99 <= 5 ms", search_p99, search_p99 <= 5.0),
    ("ready <= 1000 ms", ready_ms, ready_ms <= 1000),
    ("peak RSS <= 300 MB", hwm_kb / 1024, hwm_kb / 1024 <= 300),
]
print()
for name, value, ok in goals:
    print(f"{name:28} {value:10.2f}  {'met' if ok else 'MISSED'}")
PY

# A run with a failed answer measured something else than the read it names.
if [ ${#failed_runs[@]} -gt 0 ]; then
    echo "FAILED: non-2xx answers or socket errors in: ${failed_runs[*]}" >&2
    exit 1
fi
