#!/usr/bin/env bash
# contrib/sitd-broker-update against a broker's update endpoint in a test namespace
# (tests/integration/broker_server.py, logging each request): a `local any` tunnel's
# outer address at start, then changed by a route's src and by an address removed, each
# reaches the server as myip= with the template's hostname and the URL's credentials
# (never in the log); the server failing twice shows the retries and the backoff; a
# refusal (badauth) is not retried; a template without {addr} is refused at start.
#
#   A va 192.0.2.1 === ra 192.0.2.254 R (the broker's web server on :8080)
. "$(dirname "$0")/lib.sh"
require_root jq python3
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY no_proxy
SCRIPT=$ROOT/contrib/sitd-broker-update

setup_routed 1400
SRVLOG=$LOGDIR/requests.jsonl
FAILS=$LOGDIR/fails
: >"$SRVLOG"
echo 0 >"$FAILS"
nr python3 "$ROOT/tests/integration/broker_server.py" 192.0.2.254 8080 "$SRVLOG" "$FAILS" &
for _ in $(seq 50); do nr ss -ltn | grep -q 192.0.2.254:8080 && break; sleep 0.1; done
start_sitd "$NS_A" sitd-a he1 mode sit remote 203.0.113.2 local any
SOCK=$(sock_of "$LAST_PID")

# requests ADDR: how many requests the server answered 200 for myip=ADDR
requests() { jq -s "[.[] | select(.query.myip == \"$1\" and .code == 200)] | length" "$SRVLOG"; }
# wait_requests ADDR: until one came (10 s)
wait_requests() {
	for _ in $(seq 100); do
		[ "$(requests "$1")" -ge 1 ] && return 0
		sleep 0.1
	done
	return 1
}

TPL='http://user%40example:s3cret@192.0.2.254:8080/nic/update?hostname=123456&myip={addr}&t={tunnel}'
na python3 "$SCRIPT" --sitd "$SITD" -S "$SOCK" --backoff 0.5 --retries 4 "he1=$TPL" \
	2>"$LOGDIR/broker.log" &
BROKER=$!
check "at start: the address in use, 192.0.2.1, sent" wait_requests 192.0.2.1
last=$(tail -n 1 "$SRVLOG")
expect_eq "the template's path and hostname" "$(jq -r '"\(.path) \(.query.hostname) \(.query.t)"' <<<"$last")" \
	"/nic/update 123456 he1"
expect_eq "the URL's user and key as Basic authentication, unquoted" "$(jq -r .cred <<<"$last")" \
	"user@example:s3cret"

# The outer address changes: a second address, and the route toward the remote uses it.
na ip addr add 192.0.2.50/24 dev va
na ip route replace default via 192.0.2.254 src 192.0.2.50
check "route with src 192.0.2.50: the broker is told myip=192.0.2.50" wait_requests 192.0.2.50

# The server fails twice, then answers: three attempts, waits of 0.5 s and 1 s.
echo 2 >"$FAILS"
na ip addr add 192.0.2.60/24 dev va
na ip route replace default via 192.0.2.254 src 192.0.2.60
check "server failing twice, then: myip=192.0.2.60 arrives" wait_requests 192.0.2.60
expect_eq "the server saw 2 failed attempts for it, then one good" \
	"$(jq -s -c '[.[] | select(.query.myip == "192.0.2.60") | .code]' "$SRVLOG")" "[500,500,200]"
check "a log line per attempt: 1/4 and 2/4 HTTP 500, 3/4 done" bash -c "
	grep -q '192.0.2.60: attempt 1/4: .*: HTTP 500' $LOGDIR/broker.log &&
	grep -q '192.0.2.60: attempt 2/4: .*: HTTP 500' $LOGDIR/broker.log &&
	grep -q '192.0.2.60: attempt 3/4: .*: HTTP 200 \"good 192.0.2.60\": done' $LOGDIR/broker.log"
check "the key is never logged" bash -c "! grep -q s3cret $LOGDIR/broker.log"
check "... the user is, the key as ***" grep -q 'user%40example:\*\*\*@192.0.2.254:8080' "$LOGDIR/broker.log"

# Addresses removed: the route with src .60 goes with its address; back to 192.0.2.1
# once a default route is there again.
na ip addr del 192.0.2.60/24 dev va
na ip addr del 192.0.2.50/24 dev va
na ip route replace default via 192.0.2.254
for _ in $(seq 100); do [ "$(requests 192.0.2.1)" -ge 2 ] && break; sleep 0.1; done
expect_eq "addresses removed, route back: 192.0.2.1 sent again" "$(requests 192.0.2.1)" 2
kill $BROKER; wait $BROKER 2>/dev/null

# A broker that refuses (badauth): logged, not retried.
cat >"$LOGDIR/badauth.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        open(sys.argv[1], "a").write(self.path + "\n")
        self.send_response(200); self.end_headers(); self.wfile.write(b"badauth\n")
    def log_message(self, *a): pass
http.server.HTTPServer(("192.0.2.254", 8081), H).serve_forever()
PY
nr python3 "$LOGDIR/badauth.py" "$LOGDIR/bad.log" &
for _ in $(seq 50); do nr ss -ltn | grep -q 192.0.2.254:8081 && break; sleep 0.1; done
na timeout 4 python3 "$SCRIPT" --sitd "$SITD" -S "$SOCK" --backoff 0.2 \
	"he1=http://192.0.2.254:8081/u?myip={addr}" 2>"$LOGDIR/bad.err"
expect_eq "badauth: one request, not retried" "$(wc -l <"$LOGDIR/bad.log")" 1
check "... and said so" grep -q 'HTTP 200 "badauth": refused, not retried' "$LOGDIR/bad.err"

# Bad input: refused at start, with a clear message, exit 2.
out=$(python3 "$SCRIPT" --sitd "$SITD" "he1=https://u:k@ipv4.tunnelbroker.net/nic/update?hostname=1" 2>&1)
rc=$?
expect_eq "a template without {addr}: exit 2" "$rc" 2
check "... saying so: $out" grep -q 'he1: the template has no {addr}' <<<"$out"
out=$(python3 "$SCRIPT" --sitd "$SITD" "he1=ftp://h/{addr}" 2>&1)
check "not http(s): $out" grep -q 'not an http(s) URL' <<<"$out"
out=$(python3 "$SCRIPT" --sitd "$SITD" "he1=http://h/{addr}/{nope}" 2>&1)
check "an unknown {field}: $out" grep -q 'bad template' <<<"$out"
finish
