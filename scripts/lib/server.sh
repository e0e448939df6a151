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
