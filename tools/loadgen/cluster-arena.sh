#!/usr/bin/env bash
# cluster-arena.sh: the arena load over a cluster of two instances on one
# PostgreSQL: an admin key sets up an arena on the first, PLAYERS players
# join it, the odd ones on the second (the lease holder pairs them all),
# then the bare baseline with as many sessions.
#
#   DATABASE_URL=postgres://… tools/loadgen/cluster-arena.sh [PLAYERS] [DURATION]
#
# It makes (and drops) a schema of its own in DATABASE_URL's database,
# listens on 127.0.0.1:${PORT_BASE:-24300}+1..+3, and prints loadgen's
# report: "opponent on another server of the cluster" is a move on one
# instance → the panel on the other, "bus events" the events per second.
# The arena's games last GAME (1m). LOADGEN_FLAGS (words) are added to
# loadgen's flags. PROFILE=1 builds the instances with -tags pprof (on
# 127.0.0.1:${PORT_BASE}+11 and +12) and keeps a CPU profile of each for
# PROFILE_SECS (30) from 10 s into the window in the directory it names.
set -euo pipefail
players=${1:-500}
duration=${2:-4m}
base=${PORT_BASE:-24300}
: "${DATABASE_URL:?set DATABASE_URL to a PostgreSQL URL}"

read -r -a loadgenFlags <<<"${LOADGEN_FLAGS:-}"
dir=$(mktemp -d)
schema="cluster_arena_$$"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	psql "$DATABASE_URL" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" || true
	[[ ${PROFILE:-0} == 1 ]] || rm -rf "$dir"
}
trap cleanup EXIT

tags=()
[[ ${PROFILE:-0} == 1 ]] && tags=(-tags pprof)
go build "${tags[@]}" -o "$dir/pyramid" ./cmd/pyramid
go build -o "$dir/loadgen" ./tools/loadgen
psql "$DATABASE_URL" -qc "CREATE SCHEMA $schema"
sep='?'
[[ $DATABASE_URL == *\?* ]] && sep='&'
url="${DATABASE_URL}${sep}search_path=$schema"
ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"
ssh-keygen -q -t ed25519 -N '' -C admin -f "$dir/admin"
admin=$(ssh-keygen -lf "$dir/admin.pub" | awk '{print $2}')
# Every simulated player comes from 127.0.0.1: the per-address budgets
# (accounts, rooms, spectator seats) are lifted as the connection limits
# are, and an arena race's rooms count against --max-rooms.
limits=(--admins "$admin" --max-conns 3000 --max-conns-per-ip 3000 --max-unauth-per-ip 3000 --penalties off --max-startups 3000:30:3000
	--max-rooms 3000 --max-rooms-per-address 3000 --limit-accounts 100000/1h --limit-rooms 100000/1h --limit-spectator-seats 3000)

serve() { # port data-dir database-url; PPROF=address
	mkdir -p "$2"
	PYRAMID_PPROF=${PPROF:-} "$dir/pyramid" serve --listen "127.0.0.1:$1" --data "$2" --host-key "$dir/host_key" "${limits[@]}" \
		--database-url "$3" >"$2.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		grep -q listening "$2.log" && return
		sleep 0.1
	done
	echo "instance on $1 did not start:" >&2
	cat "$2.log" >&2
	exit 1
}

pp1= pp2=
[[ ${PROFILE:-0} == 1 ]] && pp1=127.0.0.1:$((base + 11)) pp2=127.0.0.1:$((base + 12))
PPROF=$pp1 serve $((base + 1)) "$dir/one" "$url"
one=${pids[-1]}
PPROF=$pp2 serve $((base + 2)) "$dir/two" "$url"
two=${pids[-1]}
"$dir/loadgen" -baseline-server -addr "127.0.0.1:$((base + 3))" >"$dir/bare.log" 2>&1 &
bare=$!
pids+=("$bare")
echo "== cluster: $players arena players over two instances on PostgreSQL (RSS and CPU: the first instance's)"
"$dir/loadgen" -addr "127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2))" -arena "$players" -arena-admin-key "$dir/admin" \
	-arena-game "${GAME:-1m}" -duration "$duration" -width 100 -height 34 -pid "$one" -database-url "$url" \
	-baseline-addr "127.0.0.1:$((base + 3))" -baseline-pid "$bare" "${loadgenFlags[@]}" | tee "$dir/loadgen.out" &
load=$!
if [[ ${PROFILE:-0} == 1 ]]; then
	until grep -q '^players in the arena' "$dir/loadgen.out" 2>/dev/null || ! kill -0 "$load" 2>/dev/null; do sleep 0.5; done
	sleep 10
	curl -s -o "$dir/cpu-one.pprof" "http://$pp1/debug/pprof/profile?seconds=${PROFILE_SECS:-30}" &
	c1=$!
	curl -s -o "$dir/cpu-two.pprof" "http://$pp2/debug/pprof/profile?seconds=${PROFILE_SECS:-30}" &
	c2=$!
	wait "$c1" "$c2" || true
fi
wait "$load"
# Both instances' CPU over the whole run, for the one the report does
# not follow.
for i in one two; do
	p=$one
	[[ $i == two ]] && p=$two
	awk -v i="$i" '{ printf "instance %s: %.1f s of CPU over the whole run\n", i, ($14 + $15) / 100 }' "/proc/$p/stat" 2>/dev/null || true
done
for i in one two; do
	echo "== instance $i's warnings and errors (counted):"
	grep -E "WARN|ERRO" "$dir/$i.log" | cut -c21-160 | sort | uniq -c | sort -rn | head -5 || true
done
[[ ${PROFILE:-0} == 1 ]] && echo "profiles in $dir"
exit 0
