# Waits until a `manabi serve` started with MANABI_BIND=127.0.0.1:0 has printed its address
# and answers /readyz; sets `base` to its address. Arguments: the server's stdout and
# stderr files, and a name for the messages.
wait_for_server() {
    local stdout=$1 stderr=$2 name=$3
    base=
    for _ in $(seq 1 400); do
        base=$(sed -n 's/^manabi listening on //p' "$stdout")
        if [ -n "$base" ] && curl -fsS "$base/readyz" >/dev/null 2>&1; then return 0; fi
        sleep 0.05
    done
    echo "$name: server did not become ready" >&2
    cat "$stderr" >&2
    return 1
}

# Starts the mail sink (tests/python/smtp_sink.py, aiosmtpd) with the Python of `venv`,
# keeping mail in `$work/mail`; sets `sink_pid` and `sink_port`. Argument: a name for
# the messages.
start_mail_sink() {
    local name=$1
    "$venv/bin/python" tests/python/smtp_sink.py --port-file "$work/sink.port" \
        --maildir "$work/mail" >"$work/sink.log" 2>&1 &
    sink_pid=$!
    for _ in $(seq 1 200); do
        [ -s "$work/sink.port" ] && break
        sleep 0.05
    done
    if [ ! -s "$work/sink.port" ]; then
        echo "$name: the mail sink did not start" >&2
        cat "$work/sink.log" >&2
        return 1
    fi
    sink_port=$(cat "$work/sink.port")
}

# A free loopback port, for a server whose address must be known before it starts (its
# mailed links and OAuth metadata name it); a port taken in between shows as a server
# that never got ready.
free_port() {
    "$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Waits until a stand-in started with its output in `file` has printed
# `listening on URL`; prints the URL. Arguments: the output file, the stand-in's
# stderr file, a name for the messages.
wait_for_listening() {
    local stdout=$1 stderr=$2 name=$3 url=
    for _ in $(seq 1 200); do
        url=$(sed -n 's/^listening on //p' "$stdout")
        [ -n "$url" ] && break
        sleep 0.05
    done
    if [ -z "$url" ]; then
        echo "$name did not start" >&2
        cat "$stderr" >&2
        return 1
    fi
    echo "$url"
}
