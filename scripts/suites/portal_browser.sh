#!/usr/bin/env bash
# Drives the developer portal (`/developers`) of a live `manabi serve` in Debian's
# headless Chromium with playwright-core (tests/portal-browser/browser.mjs): sign-in by a
# mailed one-time link, the dashboard, an operator's grant (`manabi admin topup`), a key
# created, spent on a REST call and revoked, the balance and usage following, sign-out,
# the used link refused; labels, keyboard focus, contrast, a 390 px screen and sign-in
# with JavaScript off. Links are mailed over plain SMTP to a stand-in server
# (tests/python/smtp_sink.py, aiosmtpd) that keeps each message as a file. The server
# runs on the committed artifact, a free loopback port and a temporary data directory.
# A full-page screenshot of every page is kept in var/screenshots/portal/ (not committed).
# Exits non-zero on any failure (with the servers' log tails) and always stops both.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/server.sh
unset MANABI_TRANSLATION_MODELS

# Debian's Chromium: the browser playwright-core drives (it downloads none of its own).
chromium_bin=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium_bin" ]; then
    if [ -n "${CHROMIUM:-}" ]; then
        echo "portal_browser: CHROMIUM=$CHROMIUM is not an executable" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
export CHROMIUM=$chromium_bin

venv=var/venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/python/requirements.txt

# playwright-core, exactly as locked; reinstalled only when the lockfile changed.
js=tests/portal-browser
lock_sum=$(sha256sum "$js/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$js/node_modules/.manabi-lock-sha256" 2>/dev/null)" != "$lock_sum" ]; then
    (cd "$js" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$lock_sum" >"$js/node_modules/.manabi-lock-sha256"
fi

binary=target/debug/manabi
if [ ! -x "$binary" ]; then
    cargo build --quiet --bin manabi
fi

artifact=data/manabi-dataset.jsonl.zst
if [ ! -f "$artifact" ]; then
    echo "portal_browser: the committed artifact $artifact is missing" >&2
    exit 1
fi

mkdir -p var
work=$(mktemp -d "$PWD/var/portal-browser.XXXXXX")
shots=var/screenshots/portal
rm -rf "$shots"
mkdir -p "$shots"
server_pid=
sink_pid=
stripe_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    if [ -n "$sink_pid" ]; then kill "$sink_pid" 2>/dev/null || true; wait "$sink_pid" 2>/dev/null || true; fi
    if [ -n "$stripe_pid" ]; then kill "$stripe_pid" 2>/dev/null || true; wait "$stripe_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

logs() {
    echo "portal_browser: server log:" >&2
    tail -n 40 "$work/stderr" >&2 || true
    echo "portal_browser: mail sink log:" >&2
    tail -n 20 "$work/sink.log" >&2 || true
}

start_mail_sink portal_browser

# The mailed link must point at the server, so the server's port is chosen before it
# starts (MANABI_BASE_URL); a port taken in between shows as a server that never got ready.
port=$(free_port)
database_url="sqlite://$work/var/ledger.sqlite"
mkdir -p "$work/var"

# Stripe: the tests crate's stand-in speaking its protocol (Checkout Sessions, a hosted
# payment page, signed webhooks to the server).
stripe_binary=target/debug/stripe-standin
[ -x "$stripe_binary" ] || cargo build --quiet -p manabi-tests --bin stripe-standin
"$stripe_binary" --webhook "http://127.0.0.1:$port/stripe/webhook" >"$work/stripe.stdout" 2>"$work/stripe.stderr" &
stripe_pid=$!
stripe_url=$(wait_for_listening "$work/stripe.stdout" "$work/stripe.stderr" "portal_browser: the Stripe stand-in")

MANABI_STRIPE_API_URL="$stripe_url" MANABI_STRIPE_SECRET_KEY=sk_test_manabi \
    MANABI_STRIPE_WEBHOOK_SECRET=whsec_manabi_test \
    MANABI_BIND="127.0.0.1:$port" MANABI_BASE_URL="http://127.0.0.1:$port" \
    MANABI_DATA_DIR="$work/var" MANABI_ARTIFACT="$artifact" \
    MANABI_DATABASE_URL="$database_url" MANABI_LOG=warn \
    MANABI_KEY_RATE_PER_SEC=0 MANABI_KEYLESS_RATE_PER_SEC=0 \
    MANABI_SMTP_URL="smtp://127.0.0.1:$sink_port" \
    "$binary" serve >"$work/stdout" 2>"$work/stderr" &
server_pid=$!

if ! wait_for_server "$work/stdout" "$work/stderr" portal_browser; then
    logs
    exit 1
fi

if ! timeout 100 node "$js/browser.mjs" "$base" "$work/mail" "$shots" "$binary" "$database_url"; then
    echo "portal_browser: failed; screenshots in $shots" >&2
    logs
    exit 1
fi
echo "portal_browser: screenshots in $shots"
