#!/usr/bin/env bash
# OAuth for MCP end to end with the official Python MCP SDK's client
# (`mcp.client.auth.OAuthClientProvider`): tests/python/mcp_oauth.py signs in to the
# developer portal by a mailed one-time link, grants the account points with
# `manabi admin topup`, lets the SDK find its way from the 401 of `/mcp` through the
# protected resource and authorization server metadata, dynamic registration, the consent
# page (Allow pressed with the portal session) and the token endpoint, calls a billed tool
# with the token and refreshes it; then the refusals by hand (another resource, a code or
# refresh token used twice, a bogus bearer token, Deny, a forged consent) and the
# connection a 401 came on still answering the next request. Links are
# mailed over plain SMTP to the stand-in tests/python/smtp_sink.py, which keeps each
# message as a file. The server runs on the committed artifact, a free loopback port and a
# temporary data directory. Exits non-zero on any failure (with the servers' log tails)
# and always stops both.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/server.sh
unset MANABI_TRANSLATION_MODELS

venv=var/venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/python/requirements.txt

binary=target/debug/manabi
if [ ! -x "$binary" ]; then
    cargo build --quiet --bin manabi
fi

artifact=data/manabi-dataset.jsonl.zst
if [ ! -f "$artifact" ]; then
    echo "mcp_oauth: the committed artifact $artifact is missing" >&2
    exit 1
fi

mkdir -p var
work=$(mktemp -d "$PWD/var/mcp-oauth.XXXXXX")
server_pid=
sink_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    if [ -n "$sink_pid" ]; then kill "$sink_pid" 2>/dev/null || true; wait "$sink_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

logs() {
    echo "mcp_oauth: server log:" >&2
    tail -n 40 "$work/stderr" >&2 || true
    echo "mcp_oauth: mail sink log:" >&2
    tail -n 20 "$work/sink.log" >&2 || true
}

start_mail_sink mcp_oauth

# The mailed link and the OAuth metadata name the server's address, so its port is chosen
# before it starts (MANABI_BASE_URL); a port taken in between shows as a server that never
# got ready.
port=$(free_port)
database_url="sqlite://$work/var/ledger.sqlite"
mkdir -p "$work/var"

MANABI_BIND="127.0.0.1:$port" MANABI_BASE_URL="http://127.0.0.1:$port" \
    MANABI_DATA_DIR="$work/var" MANABI_ARTIFACT="$artifact" \
    MANABI_DATABASE_URL="$database_url" MANABI_LOG=warn \
    MANABI_KEY_RATE_PER_SEC=0 MANABI_KEYLESS_RATE_PER_SEC=0 \
    MANABI_SMTP_URL="smtp://127.0.0.1:$sink_port" \
    "$binary" serve >"$work/stdout" 2>"$work/stderr" &
server_pid=$!

if ! wait_for_server "$work/stdout" "$work/stderr" mcp_oauth; then
    logs
    exit 1
fi

if ! timeout 300 "$venv/bin/python" tests/python/mcp_oauth.py --base "$base" --maildir "$work/mail" \
    --manabi "$binary" --database-url "$database_url"; then
    echo "mcp_oauth: failed" >&2
    logs
    exit 1
fi
