#!/usr/bin/env bash
# cluster-race.sh: the race load over a cluster of two instances on one
# PostgreSQL, then (for a baseline in the same minute) over one instance on
# SQLite with as many racers.
#
#   DATABASE_URL=postgres://… tools/loadgen/cluster-race.sh [RACERS] [ROOM_SIZE] [DURATION]
#
# It makes (and drops) a schema of its own in DATABASE_URL's database,
# listens on 127.0.0.1:${PORT_BASE:-24200}+1..+3, and prints loadgen's
# reports: "opponent on another server of the cluster" is the move on one
# instance → the panel on the other, "bus events" the events per second
# (each sends two NOTIFYs: the one with the event's data and the short
# one older servers hear).
#
# LOADGEN_FLAGS (words) are added to both loadgen runs' flags, e.g.
# LOADGEN_FLAGS=-moves-in-step for every racer's move in one window.
# BASELINE=0 skips the SQLite baseline. WAITS=1 samples PostgreSQL's
# pg_stat_activity every 100 ms during the cluster's race and prints what
# the active backends waited on (wait_event_type:wait_event, or CPU), the
# share of samples each, and the backends' queries. PROFILE=1 builds the
# instances with -tags pprof (on 127.0.0.1:${PORT_BASE}+11 and +12) and,
# at the race's end, prints the top of each one's mutex profile (where
# its locks were waited for, in total delay) and keeps the mutex, block
# and CPU profiles (the CPU one for PROFILE_SECS, 10, from 5 s after the
# racers are in their rooms) in the directory it names. TRACE=1 runs the
# instances with --trace-bus and prints their stage timings, and counts
# the bus events stored, by topic class and kind, and the timeline of
# the other servers' progress (report → applied, per second: a tail that
# comes in bursts has a cause with a time). WAITS=1 also prints what
# PostgreSQL did during the race: checkpoints (and the last one's time),
# WAL written and its full-page images, and the autovacuums and
# autoanalyzes of the schema's tables, with their times. GCTRACE=1 runs
# the instances with GODEBUG=gctrace=1 and prints their GC cycles during
# the race, on the wall clock, with each cycle's wall time.
set -euo pipefail
racers=${1:-500}
size=${2:-8}
duration=${3:-20s}
base=${PORT_BASE:-24200}
: "${DATABASE_URL:?set DATABASE_URL to a PostgreSQL URL}"

read -r -a loadgenFlags <<<"${LOADGEN_FLAGS:-}"
dir=$(mktemp -d)
schema="cluster_race_$$"
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
# Every simulated player comes from 127.0.0.1: the per-address budgets
# (accounts, rooms, spectator seats) are lifted as the connection limits are.
limits=(--max-conns 3000 --max-conns-per-ip 3000 --max-unauth-per-ip 3000 --penalties off --max-startups 3000:30:3000 --max-rooms 300
	--max-rooms-per-address 300 --limit-accounts 100000/1h --limit-rooms 100000/1h --limit-spectator-seats 3000)

serve() { # port data-dir [database-url [flags…]]; PPROF=address
	local args=(serve --listen "127.0.0.1:$1" --data "$2" --host-key "$dir/host_key" "${limits[@]}")
	[[ -n ${3:-} ]] && args+=(--database-url "$3" "${@:4}")
	mkdir -p "$2"
	local godebug=${GODEBUG:-}
	[[ ${GCTRACE:-0} == 1 ]] && godebug=${godebug:+$godebug,}gctrace=1
	date +%s.%N >"$2.started"
	GODEBUG=$godebug PYRAMID_PPROF=${PPROF:-} "$dir/pyramid" "${args[@]}" >"$2.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		grep -q listening "$2.log" && return
		sleep 0.1
	done
	echo "instance on $1 did not start:" >&2
	cat "$2.log" >&2
	exit 1
}

cluster=("$url")
[[ ${TRACE:-0} == 1 ]] && cluster+=(--trace-bus)
pp1= pp2=
[[ ${PROFILE:-0} == 1 ]] && pp1=127.0.0.1:$((base + 11)) pp2=127.0.0.1:$((base + 12))
PPROF=$pp1 serve $((base + 1)) "$dir/one" "${cluster[@]}"
one=${pids[-1]}
PPROF=$pp2 serve $((base + 2)) "$dir/two" "${cluster[@]}"
two=${pids[-1]}
echo "== cluster: $racers racers over two instances on PostgreSQL"
# pgstats prints what PostgreSQL did so far: checkpoints, WAL, the
# schema's tables' vacuums (one line each, for a diff).
pgstats() {
	psql "$DATABASE_URL" -qAt -F' ' -c "SELECT 'checkpoints', checkpoints_timed, checkpoints_req, 'last', to_char((pg_control_checkpoint()).checkpoint_time AT TIME ZONE 'UTC', 'HH24:MI:SS') FROM pg_stat_bgwriter" \
		-c "SELECT 'wal', wal_records, wal_fpi, wal_bytes, wal_write, wal_sync FROM pg_stat_wal" \
		-c "SELECT 'table', relname, autovacuum_count, autoanalyze_count, coalesce(to_char(last_autovacuum AT TIME ZONE 'UTC', 'HH24:MI:SS.MS'), '-'),
			coalesce(to_char(last_autoanalyze AT TIME ZONE 'UTC', 'HH24:MI:SS.MS'), '-'), n_dead_tup FROM pg_stat_user_tables WHERE schemaname = '$schema' ORDER BY relname"
}
# The race's wall times (loadgen's "rooms racing" line to its "race:"
# line), and PostgreSQL's figures at each with WAITS=1.
(
	until grep -q '^rooms racing' "$dir/loadgen.out" 2>/dev/null; do sleep 0.1; done
	date -u +%H:%M:%S.%N | cut -c1-10 >"$dir/race-start"
	[[ ${WAITS:-0} == 1 ]] && pgstats >"$dir/pg-before"
	until grep -q '^race:' "$dir/loadgen.out" 2>/dev/null; do sleep 0.1; done
	date -u +%H:%M:%S.%N | cut -c1-10 >"$dir/race-end"
	[[ ${WAITS:-0} == 1 ]] && pgstats >"$dir/pg-after"
) &
pids+=($!)
stamps=${pids[-1]}
if [[ ${WAITS:-0} == 1 ]]; then
	# One psql session polls (\watch) from the race's start (loadgen's
	# "rooms racing" line) to its end (the "race:" line).
	(
		until grep -q '^rooms racing' "$dir/loadgen.out" 2>/dev/null; do sleep 0.1; done
		printf '%s\n' "SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') || ' | ' || left(regexp_replace(query, '\s+', ' ', 'g'), 60)
			FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid() \\watch 0.1" |
			psql "$DATABASE_URL" -qAt >"$dir/waits" 2>/dev/null &
		until grep -q '^race:' "$dir/loadgen.out" 2>/dev/null; do sleep 0.1; done
		kill $!
	) &
	pids+=($!)
	waits=${pids[-1]}
fi
"$dir/loadgen" -addr "127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2))" -race "$racers" -room-size "$size" \
	-duration "$duration" -width 100 -height 34 -pid "$one" -database-url "$url" "${loadgenFlags[@]}" | tee "$dir/loadgen.out" &
load=$!
if [[ ${PROFILE:-0} == 1 ]]; then
	until grep -q '^rooms racing' "$dir/loadgen.out" 2>/dev/null || ! kill -0 "$load" 2>/dev/null; do sleep 0.2; done
	sleep 5
	curl -s -o "$dir/cpu-one.pprof" "http://$pp1/debug/pprof/profile?seconds=${PROFILE_SECS:-10}" || true
fi
wait "$load"
if [[ ${PROFILE:-0} == 1 ]]; then
	for i in one two; do
		pp=$pp1
		[[ $i == two ]] && pp=$pp2
		curl -s -o "$dir/mutex-$i.pprof" "http://$pp/debug/pprof/mutex" || true
		curl -s -o "$dir/block-$i.pprof" "http://$pp/debug/pprof/block" || true
		echo "== instance $i's mutex profile (delay waiting for locks, the whole run):"
		go tool pprof -top -nodecount=15 "$dir/pyramid" "$dir/mutex-$i.pprof" 2>/dev/null | sed -n '4,22p' || true
	done
	echo "profiles in $dir"
fi

grep -q '^race:' "$dir/loadgen.out" || kill "$stamps" 2>/dev/null || true
wait "$stamps" 2>/dev/null || true
echo "== the race ran from $(cat "$dir/race-start" 2>/dev/null) to $(cat "$dir/race-end" 2>/dev/null) UTC"
if [[ ${GCTRACE:-0} == 1 ]]; then
	for i in one two; do
		echo "== instance $i's GC cycles during the race (wall clock; wall ms: sweep termination + mark + mark termination):"
		awk -v t0="$(cat "$dir/$i.started")" -v from="$(cat "$dir/race-start")" -v to="$(cat "$dir/race-end")" '
			function hms(t,  s) { s = t % 86400; return sprintf("%02d:%02d:%04.1f", int(s / 3600), int(s % 3600 / 60), s % 60) }
			/^gc [0-9]+ @/ {
				at = t0 + substr($3, 2, length($3) - 2); split($5, w, "+")
				h = hms(at); if (h < from || h > to) next
				n++; wall = w[1] + w[2] + w[3]; tot += wall
				printf "  %s  %6.1f ms  %s\n", h, wall, $11
			}
			END { printf "  %d cycles, %.0f ms of wall time in GC\n", n, tot }' "$dir/$i.log"
	done
fi
if [[ ${WAITS:-0} == 1 ]]; then
	echo "== PostgreSQL during the race (before → after):"
	paste -d'|' "$dir/pg-before" "$dir/pg-after" 2>/dev/null | awk -F'|' '{
		split($1, a, " "); split($2, b, " ")
		if (a[1] == "checkpoints") printf "checkpoints timed %d, requested %d; the last began at %s\n", b[2] - a[2], b[3] - a[3], b[5]
		else if (a[1] == "wal") printf "WAL: %d records, %d full-page images, %.1f MB, %d writes, %d syncs\n", b[2] - a[2], b[3] - a[3], (b[4] - a[4]) / 1e6, b[5] - a[5], b[6] - a[6]
		else if (b[3] != a[3] || b[4] != a[4]) printf "table %s: %d autovacuums (last %s), %d autoanalyzes (last %s); %d dead rows at the end\n", b[2], b[3] - a[3], b[5], b[4] - a[4], b[6], b[7]
	}'
	wait "$waits" 2>/dev/null || true
	echo "== PostgreSQL's active backends during the race (samples every 100 ms):"
	total=$(grep -c . "$dir/waits" || true)
	echo "$total backend samples; by wait:"
	cut -d'|' -f1 "$dir/waits" | sort | uniq -c | sort -rn | head -12
	echo "by wait and query:"
	sort "$dir/waits" | uniq -c | sort -rn | head -15
fi
if [[ ${TRACE:-0} == 1 ]]; then
	echo "== bus events stored, by topic class and kind (the whole run; pruned ones not counted):"
	PGOPTIONS="-c search_path=$schema" psql "$DATABASE_URL" -qAt -F' ' -c "SELECT count(*), split_part(topic, '.', 1) || '.' || split_part(topic, '.', 2), kind,
		count(DISTINCT date_trunc('second', at)) FROM bus_events GROUP BY 2, 3 ORDER BY 1 DESC" |
		awk '{ printf "%8d %-16s %-10s over %d s\n", $1, $2, $3, $4 }' || true
	kill "$one" "$two"
	wait "$one" "$two" 2>/dev/null || true
	for i in one two; do
		echo "== instance $i's trace:"
		grep '^trace ' "$dir/$i.log" | grep -v '^trace timeline' || true
	done
	echo "== per second, on each instance: its racers' reports, and the other's progress applied (n, p99):"
	printf '%-11s %8s %8s %10s   %8s %8s %10s\n' second "one:rep" applied p99 "two:rep" applied p99
	for i in one two; do
		grep '^trace timeline' "$dir/$i.log" | awk -v inst="$i" '{
			for (k = 3; k <= NF; k++) if ($k ~ /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]$/) break
			kind = ($0 ~ /report → applied/) ? "applied" : "report"
			print $k, inst, kind, $(k + 2), $(k + 6)
		}'
	done | sort | awk '
		{ t[$1] = 1; n[$1, $2, $3] = $4; p[$1, $2, $3] = $5 }
		END {
			for (s in t) keys[++m] = s
			for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (keys[b] < keys[a]) { x = keys[a]; keys[a] = keys[b]; keys[b] = x }
			for (a = 1; a <= m; a++) {
				s = keys[a]
				printf "%-11s %8d %8d %10s   %8d %8d %10s\n", s, n[s, "one", "report"], n[s, "one", "applied"], p[s, "one", "applied"],
					n[s, "two", "report"], n[s, "two", "applied"], p[s, "two", "applied"]
			}
		}'
	echo "(a second with few reports on both instances: the keys did not come, from the load or the box; few applied with reports on the other: the bus)"
fi
[[ ${BASELINE:-1} == 0 ]] && exit 0
serve $((base + 3)) "$dir/alone"
echo "== baseline: $racers racers on one instance on SQLite"
"$dir/loadgen" -addr "127.0.0.1:$((base + 3))" -race "$racers" -room-size "$size" \
	-duration "$duration" -width 100 -height 34 -pid "${pids[-1]}" "${loadgenFlags[@]}"
