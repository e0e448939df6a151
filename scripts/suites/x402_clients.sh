#!/usr/bin/env bash
# Drives the x402 pay-per-call mirror (`/x402/...`) of a live `manabi serve` with the
# official x402 clients: the Python SDK (PyPI `x402`: its httpx client for v2, its v1
# scheme for `X-PAYMENT`, its MCP session over the `mcp` SDK's streamable HTTP client;
# tests/python/x402_clients.py) and the TypeScript one (npm `@x402/fetch` + `@x402/evm`;
# tests/x402-js/pay.mjs). Payments are verified and settled by the stand-in facilitator
# of the tests crate (`x402-facilitator`, which checks the EIP-712 signatures and lists
# what it settled), so no chain is involved. The server runs on the committed artifact, a
# free loopback port and a temporary data directory and ledger.
# Exits non-zero on any failure (with the servers' log tails) and always stops both.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/server.sh
unset MANABI_TRANSLATION_MODELS

venv=var/venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/python/requirements.txt

# The JS client, exactly as locked; reinstalled only when the lockfile changed.
js=tests/x402-js
lock_sum=$(sha256sum "$js/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$js/node_modules/.manabi-lock-sha256" 2>/dev/null)" != "$lock_sum" ]; then
    (cd "$js" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$lock_sum" >"$js/node_modules/.manabi-lock-sha256"
fi

binary=target/debug/manabi
facilitator_binary=target/debug/x402-facilitator
if [ ! -x "$binary" ]; then
    cargo build --quiet --bin manabi
fi
if [ ! -x "$facilitator_binary" ]; then
    cargo build --quiet -p manabi-tests --bin x402-facilitator
fi

artifact=data/manabi-dataset.jsonl.zst
if [ ! -f "$artifact" ]; then
    echo "x402_clients: the committed artifact $artifact is missing" >&2
    exit 1
fi

mkdir -p var
work=$(mktemp -d "$PWD/var/x402-clients.XXXXXX")
server_pid=
facilitator_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    if [ -n "$facilitator_pid" ]; then kill "$facilitator_pid" 2>/dev/null || true; wait "$facilitator_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

logs() {
    echo "x402_clients: server log:" >&2
    tail -n 40 "$work/stderr" >&2 || true
    echo "x402_clients: facilitator log:" >&2
    tail -n 20 "$work/facilitator.stderr" >&2 || true
}

"$facilitator_binary" --bind 127.0.0.1:0 >"$work/facilitator.stdout" 2>"$work/facilitator.stderr" &
facilitator_pid=$!
facilitator=$(wait_for_listening "$work/facilitator.stdout" "$work/facilitator.stderr" \
    "x402_clients: the facilitator")
curl -fsS "$facilitator/supported" >/dev/null

pay_to=0x2222222222222222222222222222222222222222
mkdir -p "$work/var"
MANABI_BIND=127.0.0.1:0 MANABI_DATA_DIR="$work/var" MANABI_ARTIFACT="$artifact" \
    MANABI_DATABASE_URL="sqlite://$work/var/ledger.sqlite" MANABI_LOG=warn \
    MANABI_KEY_RATE_PER_SEC=0 MANABI_KEYLESS_RATE_PER_SEC=0 \
    MANABI_X402_PAY_TO="$pay_to" MANABI_X402_NETWORK=base-sepolia \
    MANABI_X402_FACILITATOR_URL="$facilitator" MANABI_X402_JPY_PER_USD=150 \
    "$binary" serve >"$work/stdout" 2>"$work/stderr" &
server_pid=$!

wait_for_server "$work/stdout" "$work/stderr" x402_clients

# Both clients run, whatever the first found, so one run shows every failure.
failed=
if ! "$venv/bin/python" tests/python/x402_clients.py --base "$base" --facilitator "$facilitator" \
    --pay-to "$pay_to"; then
    echo "x402_clients: the Python SDK run failed" >&2
    failed=1
fi
if ! node "$js/pay.mjs" "$base" "$facilitator"; then
    echo "x402_clients: the JS SDK run failed" >&2
    failed=1
fi
if [ -n "$failed" ]; then
    logs
    exit 1
fi
