# Makes sure a PostgreSQL server answers on MANABI_TEST_PG_URL (default: the loopback
# server, database `test`). Starts the local cluster, or installs and starts one, if needed.
export MANABI_TEST_PG_URL="${MANABI_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"

pg_answers() {
    pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null
}

ensure_postgres() {
    if pg_answers; then return 0; fi
    if ! command -v pg_ctlcluster >/dev/null 2>&1; then
        echo "installing PostgreSQL from Debian packages" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    fi
    local version
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    for _ in $(seq 1 30); do
        pg_answers && break
        sleep 1
    done
    pg_answers || { echo "PostgreSQL did not start" >&2; return 1; }
    # Trust auth on loopback and a `test` database, as the tests expect.
    psql -h 127.0.0.1 -U postgres -tc "SELECT 1 FROM pg_database WHERE datname='test'" | grep -q 1 \
        || psql -h 127.0.0.1 -U postgres -c "CREATE DATABASE test" >/dev/null
}
