#!/usr/bin/env bash
# cluster-test.sh: the cluster docs/operations.md describes ("Running several servers")
# on one machine, all on loopback: one PostgreSQL, two pyramid instances on
# it with one host key, and a real HAProxy (Debian's package, installed
# with apt-get when missing) in front, configured from deploy/haproxy.cfg.
# It checks that
#   - both instances serve the same host key (--host-key);
#   - HAProxy's health checks on /healthz find both instances up;
#   - through HAProxy, the instances see the client's address (PROXY v2):
#     their logs name it, and the per-address limit counts it, not HAProxy's
#     127.0.0.1 (a second client address still gets in);
#   - the club's web page through HAProxy (its HTTP front end): /status
#     lists both instances, the per-address limit counts the client's
#     address (X-Forwarded-For from HAProxy), and a page open on one
#     instance follows a player who connects to the other, live;
#   - an arena's page through HAProxy (tools/clusterrace, first): an
#     admin sets an arena up, a player races in it on each instance, and
#     a live stream of its page on each instance shows both racing and
#     the top game's first move, whichever instance its racer is on;
#   - a PROXY header from an address that is not HAProxy's is refused, and
#     so is a plain ssh from HAProxy's own address (it must send a PROXY
#     header); plain ssh from any other address reaches an instance;
#   - races across the instances (tools/clusterrace, straight to each
#     instance from addresses that are not HAProxy's): a room made on one
#     is listed and joined on the other, each racer sees the other's
#     progress; instance one (the races' lease holder) dies by kill -9:
#     instance two takes the lease over, HAProxy takes one out, two keeps
#     serving and taking moves, the killed instance's racer comes back on
#     two to her race, and nothing is lost; then one restarts, and the
#     reproduction of issue 26's first bug: a racer going from one
#     instance to the other and back, and to one killed and restarted;
#   - bus_leases forgets a lease that ran out long ago (an instance long
#     gone) when an instance starts.
# Usage: deploy/cluster-test.sh (from the repository root; `make cluster`).
# Ports: BASE (CLUSTER_PORT_BASE, default 24250) to BASE+7, and BASE+9 for
# a PostgreSQL of its own. PostgreSQL: PYRAMID_TEST_DATABASE_URL's server
# when set (.ci/run starts one), else one of its own (.ci/postgres.sh);
# either way a fresh database for the run, dropped at the end.
# CLUSTER_PRESENCE_TTL (default 3s) is the instances' --presence-ttl:
# shorter than the default 15s so that a death is noticed soon.
# CLUSTER_SEAT_GRACE (default 6s) is their --seat-grace: how long the
# racers of the killed instance keep their seats. KEEP=1 keeps the work
# directory, the database and a PostgreSQL of its own.
# Exit status 0 when every check holds.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${CLUSTER_PORT_BASE:-24250}
lb=$((base)) p1=$((base + 1)) p2=$((base + 2)) m1=$((base + 3)) m2=$((base + 4))
wlb=$((base + 5)) w1=$((base + 6)) w2=$((base + 7))
ttl=${CLUSTER_PRESENCE_TTL:-3s}
grace=${CLUSTER_SEAT_GRACE:-6s}
work=$(mktemp -d /tmp/pyramid-cluster.XXXXXX)
pids=()
own_pg= dbname= admin_url= db=
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ -n "${KEEP:-}" ]; then
		echo "kept $work${dbname:+ and the database $db}"
		return
	fi
	if [ -n "$dbname" ]; then
		psql "$admin_url" -qAtX -c "DROP DATABASE IF EXISTS $dbname WITH (FORCE)" >/dev/null 2>&1 || true
	fi
	if [ -n "$own_pg" ]; then
		PYRAMID_TEST_PGDATA=$own_pg .ci/postgres.sh stop >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; for f in "$work"/*.log; do echo "== $f" >&2; tail -20 "$f" >&2; done; exit 1; }
ok() { echo "ok: $*"; }
started=$SECONDS

# Debian's packages that are missing install while the binaries build.
need=()
command -v haproxy >/dev/null || need+=(haproxy)
command -v psql >/dev/null || need+=(postgresql-client)
if [ -z "${PYRAMID_TEST_DATABASE_URL:-}" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null; then
	need+=(postgresql)
fi
installer=
if [ ${#need[@]} -gt 0 ]; then
	echo "installing ${need[*]} from Debian's packages"
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}") >"$work/apt.out" 2>&1 &
	installer=$!
	pids+=($!)
fi
export PATH="/usr/local/go/bin:$PATH"
# Built with the toolchain's default cgo setting, not README's
# CGO_ENABLED=0: the packages are then those go vet (make lint) compiled
# already, and the build takes seconds, not a minute and a half (the same
# code: the arcade needs no cgo).
go build -o "$work/" ./cmd/pyramid ./tools/clusterrace
if [ -n "$installer" ]; then
	wait "$installer" || { cat "$work/apt.out" >&2; fail "could not install ${need[*]}"; }
fi

# One PostgreSQL: the test suite's when there is one, else our own; a
# fresh database in it either way.
if [ -z "${PYRAMID_TEST_DATABASE_URL:-}" ]; then
	pg_env=$(PGPORT=$((base + 9)) .ci/postgres.sh) || fail "could not start PostgreSQL (.ci/postgres.sh)"
	eval "$pg_env"
	own_pg=$PYRAMID_TEST_PGDATA
fi
admin_url=$PYRAMID_TEST_DATABASE_URL
dbname="pyramid_cluster_$$_$RANDOM"
psql "$admin_url" -qAtX -c "CREATE DATABASE $dbname" >/dev/null || fail "could not create the database $dbname"
path=${admin_url%%\?*}
query=${admin_url#"$path"}
db="${path%/*}/$dbname$query"
sql() { psql "$db" -qAtX -c "$1"; }
ok "one PostgreSQL database for the cluster: $dbname"

ssh-keygen -q -t ed25519 -N '' -f "$work/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -f "$work/player"
ssh-keygen -q -t ed25519 -N '' -f "$work/admin"
admins=$(ssh-keygen -lf "$work/admin.pub" | awk '{print $2}')

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
	local until=$((SECONDS + $1)) what=$2
	shift 2
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $until ] || fail "$what"
		sleep 0.2
	done
}

# The two instances: one database, one host key, HAProxy (127.0.0.1)
# trusted for PROXY headers, one connection per address so the limit is
# easy to hit. instance_pid[i] is instance i's process.
instance_pid=()
start_instance() { # start_instance 1|2
	local i=$1
	local port=$((i == 1 ? p1 : p2)) metrics=$((i == 1 ? m1 : m2)) webport=$((i == 1 ? w1 : w2))
	PYRAMID_HOST_KEY="$work/host_ed25519" PYRAMID_PROXY_PROTOCOL=127.0.0.1 PYRAMID_DATABASE_URL="$db" PYRAMID_ADMINS="$admins" \
		"$work/pyramid" serve --listen "127.0.0.1:$port" --metrics "127.0.0.1:$metrics" --web "127.0.0.1:$webport" --web-max-conns-per-ip 1 \
		--data "$work/data$i" --max-conns-per-ip 1 --presence-ttl "$ttl" --seat-grace "$grace" >>"$work/pyramid$i.log" 2>&1 &
	instance_pid[$i]=$!
	pids+=($!)
	wait_for 20 "instance $i (metrics on $metrics) did not come up" curl -fsS "http://127.0.0.1:$metrics/healthz"
}
# instance_name i is the name instance i's latest start took on the bus.
instance_name() { grep -o 'race rooms shared with the cluster instance=[^ ]*' "$work/pyramid$1.log" | tail -1 | cut -d= -f2; }
lease_holder() { sql "SELECT holder FROM bus_leases WHERE name = 'lobby.races'"; }
lease_held_by() { [ "$(lease_holder)" = "$1" ]; }

# Instance one first: it takes the races' lease. Then a lease left by an
# instance long gone (run out two days ago) and one run out lately, for
# the next instance's start to prune the first and keep the second.
start_instance 1
wait_for 10 "instance one does not share its race rooms (no bus on PostgreSQL?)" test -n "$(instance_name 1)"
wait_for 10 "instance one did not take the races' lease" lease_held_by "$(instance_name 1)"
sql "INSERT INTO bus_leases (name, holder, expires) VALUES
	('lobby.instance.long-gone', 'long-gone', now() - interval '2 days'),
	('lobby.instance.lately', 'lately', now() - interval '1 minute')" >/dev/null
start_instance 2
ok "both instances answer /healthz, on one PostgreSQL; instance one ($(instance_name 1)) holds the races' lease"
lease_names() { sql "SELECT string_agg(name, ' ' ORDER BY name) FROM bus_leases"; }
pruned() { ! lease_names | grep long-gone >/dev/null && lease_names | grep lately >/dev/null; }
wait_for 10 "bus_leases kept the lease of an instance long gone, or lost the one run out lately" pruned
ok "bus_leases: a starting instance forgets the lease of an instance gone two days, keeps one run out a minute ago"

fp1=$(grep -o 'host_key=SHA256:[^ ]*' "$work/pyramid1.log" | head -1)
fp2=$(grep -o 'host_key=SHA256:[^ ]*' "$work/pyramid2.log" | head -1)
[ -n "$fp1" ] && [ "$fp1" = "$fp2" ] || fail "host keys differ: '$fp1' '$fp2'"
ok "same host key on both: $fp1"

# HAProxy from deploy/haproxy.cfg, moved to loopback ports.
sed -e "s/^\(\s*bind\) :22$/\1 127.0.0.1:$lb/" \
	-e "s/^\(\s*server pyramid1\) .*/\1 127.0.0.1:$p1 check port $m1/" \
	-e "s/^\(\s*server pyramid2\) .*/\1 127.0.0.1:$p2 check port $m2/" \
	-e "s/^\(\s*bind\) :80$/\1 127.0.0.1:$wlb/" \
	-e "s/^\(\s*server web1\) .*/\1 127.0.0.1:$w1/" \
	-e "s/^\(\s*server web2\) .*/\1 127.0.0.1:$w2/" \
	-e "s/^\(\s*log stdout.*\)/\1\n    stats socket $(echo "$work" | sed 's/\//\\\//g')\/haproxy.sock/" \
	deploy/haproxy.cfg >"$work/haproxy.cfg"
grep -q "127.0.0.1:$lb" "$work/haproxy.cfg" && grep -q "127.0.0.1:$wlb" "$work/haproxy.cfg" || fail "could not adapt deploy/haproxy.cfg"
haproxy -c -q -f "$work/haproxy.cfg" || fail "haproxy rejects the configuration"
haproxy -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
pids+=($!)

backends() { # backends STATE SERVER...: HAProxy's health checks put each SERVER in STATE (UP, DOWN)
	local state=$1
	shift
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"show stat\n")
data = b""
while chunk := s.recv(65536): data += chunk
rows = {l.split(",")[1]: l.split(",")[17] for l in data.decode().splitlines() if l.startswith("pyramid,")}
sys.exit(0 if all(rows.get(n, "").startswith(sys.argv[2]) for n in sys.argv[3:]) else 1)' "$work/haproxy.sock" "$state" "$@"
}
wait_for 20 "HAProxy's health checks do not see both instances up" backends UP pyramid1 pyramid2
ok "HAProxy's /healthz checks see both instances up"
web_backends() { # like backends, for the web page's
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"show stat\n")
data = b""
while chunk := s.recv(65536): data += chunk
rows = {l.split(",")[1]: l.split(",")[17] for l in data.decode().splitlines() if l.startswith("pyramid_web,")}
sys.exit(0 if all(rows.get(n, "").startswith("UP") for n in ("web1", "web2")) else 1)' "$work/haproxy.sock"
}
wait_for 20 "HAProxy's health checks do not see both web pages up" web_backends
ok "HAProxy's /status checks see both instances' web pages up"

sshopts=(-F /dev/null -i "$work/player" -o IdentitiesOnly=yes -o StrictHostKeyChecking=no
	-o UserKnownHostsFile=/dev/null -o BatchMode=yes -o ConnectTimeout=10 -o LogLevel=ERROR -p "$lb")
players() { curl -fsS "http://127.0.0.1:$1/metrics" | awk '/^pyramid_sessions /{print $2}' || echo 0; }
held_at_least() { [ $(($(players $m1) + $(players $m2))) -ge "$1" ]; }

# Two held sessions from 127.0.0.77 through HAProxy: leastconn puts one on
# each instance, which is each one's limit for that address.
# Their input is a FIFO this script holds open and never writes to.
mkfifo "$work/hold"
exec 3<>"$work/hold"
held=()
for n in 1 2; do
	ssh "${sshopts[@]}" -tt -b 127.0.0.77 127.0.0.1 <"$work/hold" >"$work/held$n.out" 2>&1 &
	pids+=($!) held+=($!)
	wait_for 20 "held session $n did not start" held_at_least "$n"
done
ok "two sessions from 127.0.0.77 through HAProxy, one per instance"
grep -q 'remote=127.0.0.77:' "$work/pyramid1.log" || fail "instance 1 does not log the client's address"
grep -q 'remote=127.0.0.77:' "$work/pyramid2.log" || fail "instance 2 does not log the client's address"
ok "both instances log the client's address 127.0.0.77, not HAProxy's"

if out=$(ssh "${sshopts[@]}" -b 127.0.0.77 127.0.0.1 help 2>&1); then
	fail "a third connection from 127.0.0.77 got in: $out"
fi
grep -q 'Too many connections from your address (127.0.0.77)' <<<"$out" || fail "third connection not refused by the per-address limit: $out"
ok "a third connection from 127.0.0.77 is refused for its own address: ${out%%$'\n'*}"
out=$(ssh "${sshopts[@]}" -b 127.0.0.78 127.0.0.1 help 2>&1) || fail "127.0.0.78 was refused too: $out"
ok "127.0.0.78 still gets in through HAProxy"
kill "${held[@]}"

# The club's web page through HAProxy's HTTP front end.
instances_up() { curl -fsS -H 'Accept: application/json' "http://127.0.0.1:$wlb/status" | python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d["up"] and d["database_reachable"] and len(d["instances"]) == 2 else 1)'; }
wait_for 20 "/status through HAProxy does not list both instances" instances_up
ok "/status through HAProxy: up, database reachable, both instances listed"
# (as the browser reads it: the page escapes a fingerprint's "+" and "/";
# grep reads it all, so that the pipe never breaks under python)
curl -fsS "http://127.0.0.1:$wlb/" | python3 -c 'import html, sys; print(html.unescape(sys.stdin.read()))' | grep -F "${fp1#host_key=}" >/dev/null || fail "the front page through HAProxy does not show the host key's fingerprint"
ok "the front page through HAProxy shows the host key's fingerprint"
# Each instance takes one open request per address (--web-max-conns-per-ip
# 1): two live streams from 127.0.0.77 through HAProxy take one on each,
# a third is refused naming 127.0.0.77 (not HAProxy's 127.0.0.1), and
# 127.0.0.78 still gets in. A client's own X-Forwarded-For changes
# nothing: HAProxy replaces it.
streams=()
for n in 1 2; do
	curl -sN --interface 127.0.0.77 -H 'X-Forwarded-For: 10.9.9.9' "http://127.0.0.1:$wlb/events/front" >"$work/stream$n.out" 2>&1 &
	pids+=($!) streams+=($!)
	wait_for 10 "live stream $n through HAProxy did not start" grep -q '^retry:' "$work/stream$n.out"
done
out=$(curl -sS --interface 127.0.0.77 -H 'X-Forwarded-For: 10.9.9.9' "http://127.0.0.1:$wlb/events/front" 2>&1 || true)
grep -q 'Too many connections from your address (127.0.0.77)' <<<"$out" || fail "a third live stream from 127.0.0.77 was not refused for its own address: $out"
ok "a third live stream from 127.0.0.77 through HAProxy is refused for its own address: $out"
curl -fsS --interface 127.0.0.78 -o /dev/null "http://127.0.0.1:$wlb/status" || fail "127.0.0.78 was refused a page too"
ok "127.0.0.78 still gets a page through HAProxy"
kill "${streams[@]}"
# A page open on instance two follows a player who connects to instance
# one: the count online comes over the bus, not from the database.
online_at() { curl -fsS -H 'Accept: application/json' "http://127.0.0.1:$1/status" | python3 -c 'import json, sys; print(json.load(sys.stdin)["online"])'; }
nobody_online() { [ "$(online_at $w1)" = 0 ] && [ "$(online_at $w2)" = 0 ]; }
wait_for 20 "the held sessions still count online" nobody_online
curl -sN --interface 127.0.0.99 "http://127.0.0.1:$w2/events/front" >"$work/live.out" 2>&1 &
pids+=($!)
live_stream=$!
wait_for 10 "the live stream on instance two did not start" grep -q '^data: 0' "$work/live.out"
ssh "${sshopts[@]/$lb/$p1}" -tt -b 127.0.0.99 127.0.0.1 <"$work/hold" >"$work/live-player.out" 2>&1 &
pids+=($!)
live_player=$!
wait_for 20 "the page on instance two did not show the player on instance one" grep -q '^data: 1' "$work/live.out"
ok "a page open on instance two shows, live, the player who connected to instance one"
kill "$live_player" "$live_stream"

# A PROXY header straight to an instance from an address that is not
# HAProxy's: refused, and logged.
python3 - "$p1" <<'EOF' || fail "the untrusted PROXY header was not refused"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5, source_address=("127.0.0.99", 0))
s.sendall(b"PROXY TCP4 203.0.113.7 127.0.0.1 5555 22\r\nSSH-2.0-OpenSSH_9.2\r\n")
data = b""
try:
    while chunk := s.recv(4096):
        data += chunk
except (ConnectionResetError, TimeoutError):
    pass
# The server greets, then closes without starting a key exchange for it.
sys.exit(0 if b"diffie" not in data and b"curve25519" not in data else 1)
EOF
wait_for 5 "the refusal of the untrusted PROXY header is not logged" grep -q 'PROXY header from an address not in --proxy-protocol' "$work/pyramid1.log"
ok "a PROXY header from 127.0.0.99 (not HAProxy) is refused and logged"
out=$(ssh "${sshopts[@]/$lb/$p1}" -b 127.0.0.99 127.0.0.1 help 2>&1) || fail "plain SSH from 127.0.0.99 straight to an instance was refused: $out"
ok "plain SSH from 127.0.0.99 straight to an instance is served"
if out=$(ssh "${sshopts[@]/$lb/$p1}" -b 127.0.0.1 127.0.0.1 help 2>&1); then
	fail "plain SSH from 127.0.0.1 (HAProxy's address) straight to an instance got in without a PROXY header: $out"
fi
wait_for 5 "the refusal of HAProxy's address without a PROXY header is not logged" grep -q 'from a trusted proxy without a valid PROXY header' "$work/pyramid1.log"
ok "plain SSH from 127.0.0.1 (HAProxy's address, trusted) straight to an instance is refused: it must send a PROXY header"

# The races (tools/clusterrace): it asks for instance one's death and
# restarts on its standard output, and this script answers on its input.
# After the first kill, one held the races' lease: instance two must take
# it over, and HAProxy take one out, both waited for at once (settled),
# each noted when seen.
kills=0 lease_at= down_at=
settled() {
	[ -n "$lease_at" ] || ! lease_held_by "$(instance_name 2)" || lease_at=$SECONDS
	[ -n "$down_at" ] || ! backends DOWN pyramid1 || down_at=$SECONDS
	[ -n "$lease_at" ] && [ -n "$down_at" ]
}
kill_one() {
	local holder
	holder=$(lease_holder)
	kill -9 "${instance_pid[1]}"
	wait "${instance_pid[1]}" 2>/dev/null || true
	local killed=$SECONDS
	kills=$((kills + 1))
	ok "instance one killed with kill -9"
	[ $kills = 1 ] || return 0
	[ "$holder" = "$(instance_name 1)" ] || fail "instance one did not hold the races' lease when killed (holder: $holder)"
	wait_for 30 "within 30 s of instance one's death, instance two did not take the races' lease over, or HAProxy did not take one out" settled
	ok "instance two took the races' lease over in $((lease_at - killed)) s or less (presence TTL $ttl)"
	ok "HAProxy's health checks took instance one out in $((down_at - killed)) s or less"
	out=$(ssh "${sshopts[@]}" -b 127.0.0.78 127.0.0.1 help 2>&1) || fail "through HAProxy, with instance one dead: $out"
	ok "through HAProxy, players still get in (on instance two)"
}
restart_one() {
	start_instance 1
	wait_for 10 "restarted instance one does not share its race rooms" test -n "$(instance_name 1)"
	ok "instance one restarted (as $(instance_name 1)) and answers /healthz"
}
coproc RACE { "$work/clusterrace" -one "127.0.0.1:$p1" -two "127.0.0.1:$p2" -database-url "$db" -from 127.0.0.101 -presence-ttl "$ttl" -seat-grace "$grace" \
	-web "http://127.0.0.1:$wlb" -web-from 127.0.0.79 -admin-key "$work/admin" 2>&1; }
race=$RACE_PID
pids+=("$race")
exec {race_out}<&"${RACE[0]}" {race_in}>&"${RACE[1]}"
while IFS= read -r line <&"$race_out"; do
	case $line in
	"@kill one") kill_one && echo done >&"$race_in" ;;
	"@restart one") restart_one && echo done >&"$race_in" ;;
	*) echo "$line" ;;
	esac
done
status=0
wait "$race" || status=$?
if [ "$status" != 0 ]; then
	fail "the races across the instances failed (tools/clusterrace, status $status)"
fi
exec {race_out}<&- {race_in}>&-

wait_for 20 "HAProxy's health checks do not see instance one up again after its restart" backends UP pyramid1 pyramid2
ok "HAProxy's /healthz checks see both instances up again after instance one's restarts"
echo "bus_leases now: $(lease_names)"

echo "cluster: all checks passed in $((SECONDS - started)) s"
