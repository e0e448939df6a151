#!/usr/bin/env bash
# Drives the MCP endpoint of a live `manabi serve` with the official Python MCP SDK
# (PyPI `mcp`, its streamable HTTP client): tests/python/mcp_client.py initializes,
# lists the six tools, calls each, checks the charges in the ledger, the 401 gate,
# invalid arguments and the isError refusals. The server runs on the committed artifact
# (or the test fixture), a free loopback port and a temporary data directory; accounts and keys come from `manabi admin` on the same ledger.
# Exits non-zero on any failure and always stops the server.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/server.sh
# Localized reads here are served from the dataset's own text or refused (422); the
# translation engine has its own tests (tests/http_localization.rs).
unset MANABI_TRANSLATION_MODELS

venv=var/venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/python/requirements.txt

binary=target/debug/manabi
if [ ! -x "$binary" ]; then
    cargo build --quiet --bin manabi
fi

mkdir -p var
work=$(mktemp -d "$PWD/var/mcp-python.XXXXXX")
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# The committed artifact: the SDK validates every result against the tool's output
# schema, and only real documents carry every member the schemas describe (the HTTP test
# fixture is deliberately minimal). Without one, the fixture.
artifact=data/manabi-dataset.jsonl.zst
ids='{"query": "taberu", "first": "vocab-1358280", "lesson": "lesson-eating", "journey": "journey-first-meal"}'
if [ ! -f "$artifact" ]; then
    ids='{"query": "taberu", "first": "vocab-taberu", "lesson": "lesson-eating", "journey": "journey-first-meal"}'
    artifact="$work/fixture.jsonl.zst"
    MANABI_FIXTURE_OUT="$artifact" cargo test --quiet -p manabi-tests --test http_reads \
        write_fixture_artifact -- --ignored >/dev/null
fi

database_url="sqlite://$work/var/ledger.sqlite"
mkdir -p "$work/var"
MANABI_BIND=127.0.0.1:0 MANABI_DATA_DIR="$work/var" MANABI_ARTIFACT="$artifact" \
    MANABI_DATABASE_URL="$database_url" MANABI_KEY_RATE_PER_SEC=0 MANABI_LOG=warn \
    "$binary" serve >"$work/stdout" 2>"$work/stderr" &
server_pid=$!

wait_for_server "$work/stdout" "$work/stderr" mcp_python

if ! "$venv/bin/python" tests/python/mcp_client.py --base "$base" --manabi "$binary" \
    --database-url "$database_url" --ids "$ids"; then
    echo "mcp_python: failed; server log:" >&2
    tail -n 40 "$work/stderr" >&2
    exit 1
fi
