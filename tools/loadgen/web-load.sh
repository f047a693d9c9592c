#!/usr/bin/env bash
# web-load.sh: the race load of race-load.sh with and without viewers of
# the club's web page, in one run: the racers' own latency must not move
# when a thousand browsers watch the page live.
#
#   tools/loadgen/web-load.sh [RACERS] [WEB_VIEWERS] [DURATION] [ROUNDS]
#
# Each round runs two phases on a fresh arcade each (SQLite, --web):
# the race load alone, then the same with WEB_VIEWERS live streams of
# the front page (/events/front: the online count, which moves as the
# racers come and go), opened before the racers. It prints loadgen's
# report of each phase and, at the end, the racers' own keystroke→first
# byte of each phase side by side. Ports: PORT_BASE (default 25120) and
# the next one. The bare baseline is left out (race-load.sh has it).
set -euo pipefail
racers=${1:-1000}
viewers=${2:-1000}
duration=${3:-20s}
rounds=${4:-1}
base=${PORT_BASE:-25120}
dir=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[[ ${KEEP:-} == 1 ]] && echo "kept in $dir" || rm -rf "$dir"
}
trap cleanup EXIT
go build -o "$dir/pyramid" ./cmd/pyramid
go build -o "$dir/loadgen" ./tools/loadgen

phase() { # phase NAME WEB_VIEWERS
	local name=$1 n=$2
	rm -rf "$dir/data" && mkdir -p "$dir/data"
	"$dir/pyramid" serve --listen "127.0.0.1:$base" --data "$dir/data" --web "127.0.0.1:$((base + 1))" \
		--web-max-conns $((viewers + 100)) --web-max-conns-per-ip $((viewers + 100)) \
		--max-conns 3000 --max-conns-per-ip 3000 --max-unauth-per-ip 3000 --penalties off \
		--max-startups 3000:30:3000 --max-rooms 300 --max-rooms-per-address 300 \
		--limit-accounts 100000/1h --limit-rooms 100000/1h --limit-spectator-seats 3000 >"$dir/arcade-$name.log" 2>&1 &
	local arcade=$!
	pids+=("$arcade")
	for _ in $(seq 100); do
		grep -q listening "$dir/arcade-$name.log" && break
		sleep 0.1
	done
	echo "== $name: $racers racers, $n web page viewers, $duration"
	"$dir/loadgen" -addr "127.0.0.1:$base" -race "$racers" -duration "$duration" -width 100 -height 34 -pid "$arcade" \
		-web-viewers "$n" -web-url "http://127.0.0.1:$((base + 1))/events/front" | tee "$dir/report-$name.txt"
	kill "$arcade"
	wait "$arcade" 2>/dev/null || true
}
for r in $(seq "$rounds"); do
	phase "alone-$r" 0
	phase "viewers-$r" "$viewers"
done
echo
echo "== the racers' own keystroke→first byte, by phase (2 cores shared with whatever else runs: compare phases of one run only)"
for f in "$dir"/report-*.txt; do
	printf '%-12s %s\n' "$(basename "$f" .txt | sed 's/report-//')" "$(grep -m1 '^own keystroke' "$f" | sed 's/.*rows): //')"
done
