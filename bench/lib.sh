# Shared by the benchmarks: waiting for a started `manabi serve`, and reading wrk's report.
# Every function works in "$work", the benchmark's temporary directory.

# wait_ready NAME PID: waits until the server started with stdout "$work/NAME.stdout" and
# stderr "$work/NAME.stderr" answers /readyz; sets `base`. Exits if the server died.
wait_ready() {
    base=
    while :; do
        base=$(sed -n 's/^manabi listening on //p' "$work/$1.stdout")
        if [ -n "$base" ] && curl -fsS "$base/readyz" >"$work/$1.readyz" 2>/dev/null; then break; fi
        if ! kill -0 "$2" 2>/dev/null; then cat "$work/$1.stderr" >&2; exit 1; fi
        sleep 0.01
    done
}

# field_rps NAME: requests per second of the wrk report "$work/NAME.wrk".
field_rps() { awk '/^Requests\/sec:/ {print $2}' "$work/$1.wrk"; }

# field_pct NAME P: the P-th latency percentile in ms (wrk prints 1.23ms / 456.78us / 1.02s).
field_pct() {
    awk -v p="$2%" '$1 == p { v=$2;
        if (v ~ /us$/) { sub(/us$/, "", v); v=v/1000 }
        else if (v ~ /ms$/) { sub(/ms$/, "", v) }
        else if (v ~ /s$/) { sub(/s$/, "", v); v=v*1000 }
        printf "%.2f", v }' "$work/$1.wrk"
}

# errors NAME: wrk's lines about non-2xx answers and socket errors, if any.
errors() { awk '/Non-2xx|Socket errors/ {print}' "$work/$1.wrk"; }
