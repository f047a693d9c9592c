#!/usr/bin/env bash
# cluster-test.sh: two pyramid instances behind a real HAProxy (Debian's
# package, installed with apt-get when missing), configured from
# deploy/haproxy.cfg, all on loopback. It checks that
#   - both instances serve the same host key (--host-key);
#   - HAProxy's health checks on /healthz find both instances up;
#   - through HAProxy, the instances see the client's address (PROXY v2):
#     their logs name it, and the per-address limit counts it, not HAProxy's
#     127.0.0.1 (a second client address still gets in);
#   - a PROXY header from an address that is not HAProxy's is refused.
# Usage: deploy/cluster-test.sh (from the repository root; `make cluster`).
# Ports: BASE (default 24250) to BASE+4. Exit status 0 when every check holds.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${CLUSTER_PORT_BASE:-24250}
lb=$((base)) p1=$((base + 1)) p2=$((base + 2)) m1=$((base + 3)) m2=$((base + 4))
work=$(mktemp -d /tmp/pyramid-cluster.XXXXXX)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ "${KEEP:-}" = "" ]; then rm -rf "$work"; else echo "kept $work"; fi
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; for f in "$work"/*.log; do echo "== $f" >&2; tail -20 "$f" >&2; done; exit 1; }
ok() { echo "ok: $*"; }

if ! command -v haproxy >/dev/null; then
	echo "installing haproxy from Debian's packages"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null
fi
export PATH="/usr/local/go/bin:$PATH"
CGO_ENABLED=0 go build -o "$work/pyramid" ./cmd/pyramid
ssh-keygen -q -t ed25519 -N '' -f "$work/host_ed25519"
ssh-keygen -q -t ed25519 -N '' -f "$work/player"

# The two instances: one host key, HAProxy (127.0.0.1) trusted for PROXY
# headers, one connection per address so the limit is easy to hit.
for i in 1 2; do
	port=$((i == 1 ? p1 : p2)) metrics=$((i == 1 ? m1 : m2))
	PYRAMID_HOST_KEY="$work/host_ed25519" PYRAMID_PROXY_PROTOCOL=127.0.0.1 \
		"$work/pyramid" serve --listen "127.0.0.1:$port" --metrics "127.0.0.1:$metrics" \
		--data "$work/data$i" --max-conns-per-ip 1 >"$work/pyramid$i.log" 2>&1 &
	pids+=($!)
done

# HAProxy from deploy/haproxy.cfg, moved to loopback ports.
sed -e "s/^\(\s*bind\) :22$/\1 127.0.0.1:$lb/" \
	-e "s/^\(\s*server pyramid1\) .*/\1 127.0.0.1:$p1 check port $m1/" \
	-e "s/^\(\s*server pyramid2\) .*/\1 127.0.0.1:$p2 check port $m2/" \
	-e "s/^\(\s*log stdout.*\)/\1\n    stats socket $(echo "$work" | sed 's/\//\\\//g')\/haproxy.sock/" \
	deploy/haproxy.cfg >"$work/haproxy.cfg"
grep -q "127.0.0.1:$lb" "$work/haproxy.cfg" || fail "could not adapt deploy/haproxy.cfg"
haproxy -c -q -f "$work/haproxy.cfg" || fail "haproxy rejects the configuration"
haproxy -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
pids+=($!)

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
	local until=$((SECONDS + $1)) what=$2
	shift 2
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $until ] || fail "$what"
		sleep 0.2
	done
}
for m in $m1 $m2; do
	wait_for 20 "instance with metrics on $m did not come up" curl -fsS "http://127.0.0.1:$m/healthz"
done
ok "both instances answer /healthz"

fp1=$(grep -o 'host_key=SHA256:[^ ]*' "$work/pyramid1.log" | head -1)
fp2=$(grep -o 'host_key=SHA256:[^ ]*' "$work/pyramid2.log" | head -1)
[ -n "$fp1" ] && [ "$fp1" = "$fp2" ] || fail "host keys differ: '$fp1' '$fp2'"
ok "same host key on both: $fp1"

backends_up() {
	echo "show stat" | python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"show stat\n")
data = b""
while chunk := s.recv(65536): data += chunk
up = [l for l in data.decode().splitlines() if l.startswith("pyramid,pyramid") and ",UP," in l]
sys.exit(0 if len(up) == 2 else 1)' "$work/haproxy.sock"
}
wait_for 20 "HAProxy's health checks do not see both instances up" backends_up
ok "HAProxy's /healthz checks see both instances up"

sshopts=(-F /dev/null -i "$work/player" -o IdentitiesOnly=yes -o StrictHostKeyChecking=no
	-o UserKnownHostsFile=/dev/null -o BatchMode=yes -o ConnectTimeout=10 -o LogLevel=ERROR -p "$lb")
players() { curl -fsS "http://127.0.0.1:$1/metrics" | awk '/^pyramid_sessions /{print $2}' || echo 0; }
held_at_least() { [ $(($(players $m1) + $(players $m2))) -ge "$1" ]; }

# Two held sessions from 127.0.0.77 through HAProxy: leastconn puts one on
# each instance, which is each one's limit for that address.
# Their input is a FIFO this script holds open and never writes to.
mkfifo "$work/hold"
exec 3<>"$work/hold"
for n in 1 2; do
	ssh "${sshopts[@]}" -tt -b 127.0.0.77 127.0.0.1 <"$work/hold" >"$work/held$n.out" 2>&1 &
	pids+=($!)
	wait_for 20 "held session $n did not start" held_at_least "$n"
done
ok "two sessions from 127.0.0.77 through HAProxy, one per instance"
grep -q 'remote=127.0.0.77:' "$work/pyramid1.log" || fail "instance 1 does not log the client's address"
grep -q 'remote=127.0.0.77:' "$work/pyramid2.log" || fail "instance 2 does not log the client's address"
ok "both instances log the client's address 127.0.0.77, not HAProxy's"

if out=$(ssh "${sshopts[@]}" -b 127.0.0.77 127.0.0.1 help 2>&1); then
	fail "a third connection from 127.0.0.77 got in: $out"
fi
echo "$out" | grep -q 'Too many connections from your address (127.0.0.77)' || fail "third connection not refused by the per-address limit: $out"
ok "a third connection from 127.0.0.77 is refused for its own address: ${out%%$'\n'*}"
out=$(ssh "${sshopts[@]}" -b 127.0.0.78 127.0.0.1 help 2>&1) || fail "127.0.0.78 was refused too: $out"
ok "127.0.0.78 still gets in through HAProxy"

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
echo "cluster: all checks passed"
