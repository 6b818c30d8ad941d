#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A broker's update endpoint for tests/integration/test_broker_update.sh: every request
logged as one JSON line (path, query, the Basic credentials), and answered 500 while the
file FAILS holds a number above 0 (decremented by each), else "good ADDR"."""
import base64
import http.server
import json
import sys
import urllib.parse

addr, port, logpath, failpath = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]


class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(u.query))
        auth = self.headers.get("Authorization", "")
        cred = base64.b64decode(auth[6:]).decode() if auth.startswith("Basic ") else None
        try:
            with open(failpath) as f:
                fails = int(f.read().strip() or 0)
        except OSError:
            fails = 0
        code = 500 if fails > 0 else 200
        if fails > 0:
            with open(failpath, "w") as f:
                f.write(str(fails - 1))
        with open(logpath, "a") as f:
            f.write(json.dumps({"path": u.path, "query": q, "cred": cred, "code": code}) + "\n")
        body = b"911 failing on purpose\n" if code == 500 else f"good {q.get('myip')}\n".encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *a):
        pass


http.server.HTTPServer((addr, port), H).serve_forever()
