#!/usr/bin/env bash
# race-load.sh: issue 14's race load on one arcade (SQLite), with the bare
# baseline right after, as race.go's doc spells out by hand.
#
#   tools/loadgen/race-load.sh [RACERS] [LOBBY_VIEWERS] [DURATION] [WIDTHxHEIGHT]
#   PROFILE=1 tools/loadgen/race-load.sh 400        # also CPU/heap/goroutine profiles
#   ARCADE_ENV="GOMAXPROCS=4 GOGC=200" tools/loadgen/race-load.sh   # env for the arcade only
#
# It builds the arcade (with -tags pprof when PROFILE=1), the load
# generator, listens on 127.0.0.1:${PORT_BASE:-24150}+0..+2, and prints
# loadgen's report; with PROFILE=1 it takes a CPU profile of the arcade
# for PROFILE_SECS (10) from 5 s after the racers are in their rooms, then
# its heap (with runtime.MemStats), goroutines, mutex and block profiles
# and a 3 s runtime trace (go tool trace DIR/trace.out), the heap again
# 8 s before the race's end (heap-end.pprof, with a DURATION in seconds), into the kept
# directory it names (go tool pprof DIR/pyramid DIR/cpu.pprof); the
# arcade runs with GODEBUG=gctrace=1 then (its GC lines in DIR/arcade.log).
# ARCADE_ENV (space-separated NAME=VALUE words) reaches the arcade only,
# not the load generator or the bare baseline, which keep the caller's
# environment: an experiment on the arcade's runtime settings alone.
# KEEP=1 keeps the directory (arcade.log, arcade.started: the wall
# clock when the arcade started, for ARCADE_ENV=GODEBUG=gctrace=1's
# times) and names it at the end.
# LOADGEN_ENV (NAME=VALUE words) reaches the load generator only, e.g.
# KEEP=1 LOADGEN_ENV=GODEBUG=gctrace=1 for its own GC cycles (in
# DIR/loadgen.err, timed from DIR/loadgen.started): a stall of the
# generator shows as a tail of the server.
# LOADGEN_FLAGS (words) are added to loadgen's flags, e.g.
# LOADGEN_FLAGS="-race-trace /tmp/racer.trace" for one racer's frames.
set -euo pipefail
racers=${1:-1000}
viewers=${2:-20}
duration=${3:-30s}
size=${4:-100x34}
width=${size%x*}
height=${size#*x}
base=${PORT_BASE:-24150}
dir=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	# The store's group commit figures of an arcade built with
	# GOFLAGS=-tags=storelat (store/sqlstore/storelat_on.go).
	grep -s STORELAT "$dir/arcade.log" || true
	[[ ${PROFILE:-} == 1 || ${KEEP:-} == 1 ]] || rm -rf "$dir"
}
trap cleanup EXIT

tags=()
[[ ${PROFILE:-} == 1 ]] && tags=(-tags pprof)
go build "${tags[@]}" -o "$dir/pyramid" ./cmd/pyramid
go build -o "$dir/loadgen" ./tools/loadgen
mkdir -p "$dir/data"
gctrace=()
[[ ${PROFILE:-} == 1 ]] && gctrace=(GODEBUG=gctrace=1)
read -r -a arcadeEnv <<<"${ARCADE_ENV:-}"
read -r -a loadgenFlags <<<"${LOADGEN_FLAGS:-}"
read -r -a loadgenEnv <<<"${LOADGEN_ENV:-}"
date +%s.%N >"$dir/arcade.started" # gctrace's @seconds count from about here
env "${gctrace[@]}" "${arcadeEnv[@]}" PYRAMID_PPROF=127.0.0.1:$((base + 2)) "$dir/pyramid" serve --listen "127.0.0.1:$base" --data "$dir/data" \
	--max-conns 3000 --max-conns-per-ip 3000 --max-unauth-per-ip 3000 --penalties off \
	--max-startups 3000:30:3000 --max-rooms 300 \
	--max-rooms-per-address 300 --limit-accounts 100000/1h --limit-rooms 100000/1h --limit-spectator-seats 3000 >"$dir/arcade.log" 2>&1 &
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
env "${loadgenEnv[@]}" "$dir/loadgen" -addr "127.0.0.1:$base" -race "$racers" -lobby-viewers "$viewers" -duration "$duration" \
	-width "$width" -height "$height" -pid "$arcade" \
	-baseline-addr "127.0.0.1:$((base + 1))" -baseline-pid "$bare" "${loadgenFlags[@]}" 2> >(tee "$dir/loadgen.err" >&2) | tee "$dir/report.txt" &
load=$!
if [[ ${PROFILE:-} == 1 ]]; then
	until grep -q "rooms racing" "$dir/report.txt" 2>/dev/null || ! kill -0 "$load" 2>/dev/null; do sleep 0.5; done
	racing=$(date +%s)
	sleep 5
	pp="http://127.0.0.1:$((base + 2))/debug/pprof"
	curl -s -o "$dir/cpu.pprof" "$pp/profile?seconds=${PROFILE_SECS:-10}"
	curl -s -o "$dir/heap.pprof" "$pp/heap"
	curl -s -o "$dir/heap.txt" "$pp/heap?debug=1"
	curl -s -o "$dir/goroutine.txt" "$pp/goroutine?debug=1"
	curl -s -o "$dir/mutex.pprof" "$pp/mutex"
	curl -s -o "$dir/block.pprof" "$pp/block"
	curl -s -o "$dir/trace.out" "$pp/trace?seconds=3"
	# The heap again 8 s before the race's end (a duration in whole
	# seconds: 30s), for go tool pprof -base DIR/heap.pprof DIR/heap-end.pprof.
	if [[ $duration =~ ^([0-9]+)s$ ]]; then
		end=$((racing + BASH_REMATCH[1] - 8))
		while (($(date +%s) < end)) && kill -0 "$load" 2>/dev/null; do sleep 0.5; done
		curl -s -o "$dir/heap-end.pprof" "$pp/heap"
		curl -s -o "$dir/heap-end.txt" "$pp/heap?debug=1"
		curl -s -o "$dir/goroutine-end.txt" "$pp/goroutine?debug=1"
	fi
fi
wait "$load"
[[ ${PROFILE:-} == 1 ]] && echo "profiles in $dir"
if [[ ${KEEP:-} == 1 ]]; then echo "kept in $dir"; fi
