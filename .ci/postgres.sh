#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for the store tests and prints the
# shell lines that point the tests at it:
#
#   eval "$(.ci/postgres.sh)"        # install if missing, init, start, export
#   go test ./store/...              # now runs the PostgreSQL suite too
#   .ci/postgres.sh stop             # stop it and delete its files
#
# It installs Debian's postgresql package when no server is found, makes a
# cluster in a fresh temporary directory owned by a non-root user (postgres
# when run as root), listening on 127.0.0.1 only with trust authentication,
# on port $PGPORT (default 5433, or the next free one), creates the database
# pyramid_test and prints:
#
#   export PYRAMID_TEST_DATABASE_URL=postgres://pyramid@127.0.0.1:PORT/pyramid_test?sslmode=disable
#   export PYRAMID_TEST_PGDATA=/tmp/pyramid-pg.XXXXXX
#
# Everything else goes to stderr, so the output is safe to eval.
set -euo pipefail

log() { printf 'postgres.sh: %s\n' "$*" >&2; }

bindir() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then
		echo "$d"
		return
	fi
	if command -v initdb >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
	fi
}

# as_owner runs a command as the cluster's owner.
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$owner" -- "$@"
	else
		"$@"
	fi
}

if [ "${1:-}" = stop ]; then
	: "${PYRAMID_TEST_PGDATA:?PYRAMID_TEST_PGDATA is not set (eval the output of .ci/postgres.sh first)}"
	bin=$(bindir)
	owner=$(stat -c %U "$PYRAMID_TEST_PGDATA/db")
	# Keep the files of a server that would not stop, rather than delete
	# them from under it.
	as_owner "$bin/pg_ctl" -D "$PYRAMID_TEST_PGDATA/db" -m fast -w stop >&2
	rm -rf "$PYRAMID_TEST_PGDATA"
	exit 0
fi

bin=$(bindir)
if [ -z "$bin" ]; then
	log "no PostgreSQL server found; installing Debian's postgresql"
	if [ "$(id -u)" -ne 0 ]; then
		log "need root to install postgresql"
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq postgresql >&2
	bin=$(bindir)
	[ -n "$bin" ] || { log "postgresql installed but initdb not found"; exit 1; }
fi

owner=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
	# PostgreSQL refuses to run as root.
	owner=postgres
	id "$owner" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$owner"
fi

port=${PGPORT:-5433}
for _ in $(seq 1 20); do
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		break
	fi
	port=$((port + 1))
done

data=$(mktemp -d "${TMPDIR:-/tmp}/pyramid-pg.XXXXXX")
chmod 0700 "$data"
chown "$owner" "$data"
log "initialising a cluster in $data as $owner"
as_owner "$bin/initdb" -D "$data/db" -U pyramid --auth=trust -E UTF8 --locale=C.UTF-8 >"$data/initdb.log" 2>&1 ||
	as_owner "$bin/initdb" -D "$data/db" -U pyramid --auth=trust -E UTF8 >"$data/initdb.log" 2>&1 ||
	{ cat "$data/initdb.log" >&2; exit 1; }
log "starting on 127.0.0.1:$port"
as_owner "$bin/pg_ctl" -D "$data/db" -l "$data/server.log" -w -t 60 \
	-o "-c listen_addresses=127.0.0.1 -p $port -k $data -c max_connections=200" start >&2 ||
	{ cat "$data/server.log" >&2; exit 1; }
as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U pyramid pyramid_test

echo "export PYRAMID_TEST_DATABASE_URL='postgres://pyramid@127.0.0.1:$port/pyramid_test?sslmode=disable'"
echo "export PYRAMID_TEST_PGDATA='$data'"
