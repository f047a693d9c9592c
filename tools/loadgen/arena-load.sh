#!/usr/bin/env bash
# arena-load.sh: the arena load on one arcade (SQLite): an admin key sets
# up an arena, PLAYERS players join it and race in it for DURATION once
# all are in, then the bare baseline with as many sessions, as arena.go's
# doc spells out by hand.
#
#   tools/loadgen/arena-load.sh [PLAYERS] [DURATION] [WIDTHxHEIGHT]
#   PROFILE=1 tools/loadgen/arena-load.sh 1000 4m   # also the arcade's CPU profile
#
# It builds the arcade (with -tags pprof when PROFILE=1) and the load
# generator, listens on 127.0.0.1:${PORT_BASE:-24250}+0..+2, and prints
# loadgen's report. The arena's games last GAME (1m: the shortest an
# arena allows, so that the window holds several waits between games).
# With PROFILE=1 it takes a CPU profile of the arcade for PROFILE_SECS
# (30) from PROFILE_AT (10) seconds into the window (57: the first
# games' end), its heap before and after, and its goroutines, into the
# directory it keeps and names: go tool pprof DIR/pyramid DIR/cpu.pprof;
# what the profile's seconds allocated: go tool pprof
# -sample_index=alloc_space -base DIR/heap-start.pprof DIR/pyramid
# DIR/heap.pprof. KEEP=1 keeps the directory (arcade.log) too.
# LOADGEN_FLAGS (words) are added to loadgen's flags, e.g.
# LOADGEN_FLAGS="-lat-log /tmp/arena.lat" for every timed key and the
# arena's moments; ARCADE_ENV (NAME=VALUE words) reaches the arcade only,
# LOADGEN_ENV the load generator only: KEEP=1 with GODEBUG=gctrace=1 in
# either puts its GC cycles in DIR/arcade.log or DIR/loadgen.err, timed
# from DIR/arcade.started or DIR/loadgen.started (the wall clock).
#
#   WEB_VIEWERS=1000 tools/loadgen/arena-load.sh 300 1m   # the arena's page, watched
#
# WEB_VIEWERS=V serves the club's page too (--web on 127.0.0.1:PORT_BASE+3)
# and measures three windows of DURATION in one run: the players alone,
# with V live viewers of the arena's page stream (/arena/ID/events), and
# alone again; it prints the players' own latency of the three side by
# side, the server's CPU and memory in each, and what the viewers got
# (arena_web.go); the bare baseline is left out. With PROFILE=1 the
# profiles are of the window with the viewers.
set -euo pipefail
players=${1:-1000}
duration=${2:-4m}
size=${3:-100x34}
width=${size%x*}
height=${size#*x}
base=${PORT_BASE:-24250}
dir=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[[ ${PROFILE:-} == 1 || ${KEEP:-} == 1 ]] || rm -rf "$dir"
}
trap cleanup EXIT

tags=()
[[ ${PROFILE:-} == 1 ]] && tags=(-tags pprof)
go build "${tags[@]}" -o "$dir/pyramid" ./cmd/pyramid
go build -o "$dir/loadgen" ./tools/loadgen
mkdir -p "$dir/data"
ssh-keygen -q -t ed25519 -N '' -C admin -f "$dir/admin"
admin=$(ssh-keygen -lf "$dir/admin.pub" | awk '{print $2}')
read -r -a arcadeEnv <<<"${ARCADE_ENV:-}"
read -r -a loadgenFlags <<<"${LOADGEN_FLAGS:-}"
read -r -a loadgenEnv <<<"${LOADGEN_ENV:-}"
webFlags=() baseline=(-baseline-addr "127.0.0.1:$((base + 1))")
viewers=${WEB_VIEWERS:-0}
if ((viewers > 0)); then
	webFlags=(--web "127.0.0.1:$((base + 3))" --web-max-conns $((viewers + 100)) --web-max-conns-per-ip $((viewers + 100)))
	loadgenFlags+=(-web-viewers "$viewers" -web-url "http://127.0.0.1:$((base + 3))/arena/{id}/events")
	baseline=()
fi
# Every simulated player comes from 127.0.0.1: the per-address budgets
# (accounts, rooms, spectator seats) are lifted as the connection limits
# are, and an arena race's rooms count against --max-rooms.
date +%s.%N >"$dir/arcade.started" # gctrace's @seconds count from about here
env "${arcadeEnv[@]}" PYRAMID_PPROF=127.0.0.1:$((base + 2)) "$dir/pyramid" serve --listen "127.0.0.1:$base" --data "$dir/data" \
	--admins "$admin" --max-conns 3000 --max-conns-per-ip 3000 --max-unauth-per-ip 3000 --penalties off \
	--max-startups 3000:30:3000 --max-rooms 3000 --max-rooms-per-address 3000 \
	--limit-accounts 100000/1h --limit-rooms 100000/1h --limit-spectator-seats 3000 "${webFlags[@]}" >"$dir/arcade.log" 2>&1 &
arcade=$!
pids+=("$arcade")
"$dir/loadgen" -baseline-server -addr "127.0.0.1:$((base + 1))" >"$dir/bare.log" 2>&1 &
bare=$!
pids+=("$bare")
for _ in $(seq 100); do
	grep -q listening "$dir/arcade.log" && break
	sleep 0.1
done

date +%s.%N >"$dir/loadgen.started"
env "${loadgenEnv[@]}" "$dir/loadgen" -addr "127.0.0.1:$base" -arena "$players" -arena-admin-key "$dir/admin" -arena-game "${GAME:-1m}" \
	-duration "$duration" -width "$width" -height "$height" -pid "$arcade" \
	"${baseline[@]}" -baseline-pid "$bare" "${loadgenFlags[@]}" 2>"$dir/loadgen.err" | tee "$dir/report.txt" &
load=$!
if [[ ${PROFILE:-} == 1 ]]; then
	mark="^players in the arena"
	((viewers > 0)) && mark="^web page viewers reading"
	until grep -q "$mark" "$dir/report.txt" 2>/dev/null || ! kill -0 "$load" 2>/dev/null; do sleep 0.5; done
	sleep "${PROFILE_AT:-10}"
	pp="http://127.0.0.1:$((base + 2))/debug/pprof"
	curl -s -o "$dir/heap-start.pprof" "$pp/heap"
	curl -s -o "$dir/cpu.pprof" "$pp/profile?seconds=${PROFILE_SECS:-30}"
	curl -s -o "$dir/heap.pprof" "$pp/heap"
	curl -s -o "$dir/goroutine.txt" "$pp/goroutine?debug=1"
	curl -s -o "$dir/mutex.pprof" "$pp/mutex"
fi
wait "$load"
grep -v '^gc [0-9]' "$dir/loadgen.err" >&2 || true
grep -E "level=(WARN|ERROR)|WARN|ERRO" "$dir/arcade.log" | cut -c1-200 | sort | uniq -c | sort -rn | head -5 || true
[[ ${PROFILE:-} == 1 ]] && echo "profiles in $dir"
if [[ ${KEEP:-} == 1 ]]; then echo "kept in $dir"; fi
