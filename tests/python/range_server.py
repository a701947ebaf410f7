"""A loopback HTTP mirror for the tests: serves a directory with Range support (as real mirrors do).

Usage: range_server.py PORT DIR [CUT_NAME]. With CUT_NAME, the first response carrying bytes of that file stops
halfway and drops the connection (a download cut off), so the client must retry and resume with a Range.
Every HEAD and GET of a file is appended to DIR/.requests ("GET name"), so a test can tell what was fetched,
and every body served whole to DIR/.spans ("name start end", monotonic seconds), so it can tell what overlapped.

A hostile mirror: the environment variable HOSTILE="name=mode,..." makes the named files misbehave:
  long         a ranged GET answers 206 with the right Content-Range, and a Content-Length 1 MiB more than
               asked for, and sends that much
  endless      a ranged GET answers 206 with the right Content-Range, a Content-Length of 2^50, and never ends
  endless200   every GET answers 200 (Range ignored) with a Content-Length of 2^50, and never ends
  short        a ranged GET declares the full Content-Length but sends half of it and closes, every time
  head-lies    HEAD declares half the real size (the ranged GETs then say otherwise in Content-Range)
  redirect     HEAD and GET answer 302 to the same path on 127.0.0.2 (another host)
  stall        the first GET of the file sends half of its body, then nothing, holding the connection open
               (a mirror that stalls mid-body); later GETs are served
  stall-always every GET of the file sends half of its body, then nothing
A request that arrives for 127.0.0.2 (a redirect followed) creates DIR/.followed.

Any server: NORANGE=1 makes it ignore Range (every GET answers 200 with the whole file, as `python3 -m
http.server` does; with CUT_NAME, the first answer of that file stops halfway).

Credentials (every request is refused without them): AUTH=user:pass (basic auth, else 401), TOKEN=t (the query
string must hold token=t, else 403), HEADER="Name: value" (else 403). A request carrying credentials a
client should never send (user-info of the URL spelled into the path) is answered 400.

Throttled: RATE=bytes per second, per connection (a mirror whose every connection is slow; for benches).
"""
import base64
import http.server
import os
import sys
import threading
import time
import urllib.parse

PORT, ROOT = int(sys.argv[1]), sys.argv[2]
CUT = sys.argv[3] if len(sys.argv) > 3 else None
HOSTILE = dict(
    item.split("=", 1) for item in os.environ.get("HOSTILE", "").split(",") if "=" in item
)
NORANGE = os.environ.get("NORANGE") == "1"
AUTH = os.environ.get("AUTH")
TOKEN = os.environ.get("TOKEN")
HEADER = os.environ.get("HEADER")
RATE = int(os.environ.get("RATE", "0"))
state = {"cut": False, "stalled": set()}


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **k):
        super().__init__(*a, directory=ROOT, **k)

    def log_message(self, *a):
        pass

    def name(self):
        return os.path.basename(urllib.parse.urlsplit(self.path).path)

    def note(self, method):
        with open(os.path.join(ROOT, ".requests"), "a") as f:
            f.write(f"{method} {self.name()}\n")

    def mode(self):
        if self.server.server_address[0] != "127.0.0.1":
            open(os.path.join(ROOT, ".followed"), "w").close()
        return HOSTILE.get(self.name())

    def refused(self):
        """Answers 401/403 when the credentials the server wants are missing; True when it did."""
        code = None
        if AUTH:
            want = "Basic " + base64.b64encode(AUTH.encode()).decode()
            if self.headers.get("Authorization") != want:
                code = 401
        if TOKEN and urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("token") != [TOKEN]:
            code = code or 403
        if HEADER:
            k, v = HEADER.split(":", 1)
            if self.headers.get(k.strip()) != v.strip():
                code = code or 403
        if "@" in urllib.parse.unquote(self.path):
            code = 400
        if code is None:
            return False
        with open(os.path.join(ROOT, ".refused"), "a") as f:
            f.write(f"{code} {self.command} {self.name()}\n")
        self.send_response(code)
        if code == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="mirror"')
        self.send_header("Content-Length", "0")
        self.end_headers()
        return True

    def write(self, data):
        """Sends data, at most RATE bytes per second when throttled."""
        if not RATE:
            return self.wfile.write(data)
        step = max(1, RATE // 20)
        for i in range(0, len(data), step):
            t = time.monotonic()
            self.wfile.write(data[i : i + step])
            time.sleep(max(0.0, step / RATE - (time.monotonic() - t)))

    def redirect(self):
        self.send_response(302)
        self.send_header("Location", f"http://127.0.0.2:{PORT}{self.path}")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def endless(self):
        chunk = b"\0" * 65536
        try:
            while True:
                self.wfile.write(chunk)
        except OSError:
            pass  # the client hung up: what it should do
        self.close_connection = True

    def do_GET(self):
        if self.refused():
            return
        path = self.translate_path(self.path)
        rng = None if NORANGE else self.headers.get("Range")
        mode = self.mode()
        if os.path.isdir(path) or not os.path.exists(path):
            return super().do_GET()
        self.note("GET")
        if mode == "redirect":
            return self.redirect()
        if mode == "endless200":
            self.send_response(200)
            self.send_header("Content-Length", str(1 << 50))
            self.end_headers()
            return self.endless()
        data = open(path, "rb").read()
        start, end = 0, len(data) - 1
        if rng and rng.startswith("bytes="):
            a, b = rng[6:].split("-")
            start = int(a) if a else 0
            end = min(int(b), len(data) - 1) if b else len(data) - 1
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
        else:
            self.send_response(200)
        body = data[start : end + 1]
        if mode in ("long", "endless") and rng:
            extra = b"\xff" * (1 << 20)
            self.send_header("Content-Length", str(1 << 50 if mode == "endless" else len(body + extra)))
            self.end_headers()
            if mode == "endless":
                return self.endless()
            self.wfile.write(body + extra)
            self.close_connection = True
            return
        self.send_header("Content-Length", str(len(body)))
        if not NORANGE:
            self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if mode == "stall-always" or (mode == "stall" and self.name() not in state["stalled"]):
            state["stalled"].add(self.name())
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            time.sleep(3600)
            return
        if mode == "short" and rng and len(body) > 1:
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if CUT and path.endswith(CUT) and not state["cut"] and len(body) > 1:
            state["cut"] = True
            # Tell the test the cut happened.
            open(os.path.join(ROOT, ".cut"), "w").close()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        t0 = time.monotonic()
        self.write(body)
        with open(os.path.join(ROOT, ".spans"), "a") as f:
            f.write(f"{self.name()} {t0} {time.monotonic()}\n")

    def do_HEAD(self):
        if self.refused():
            return
        path = self.translate_path(self.path)
        mode = self.mode()
        if os.path.isdir(path) or not os.path.exists(path):
            return super().do_HEAD()
        self.note("HEAD")
        if mode == "redirect":
            return self.redirect()
        size = os.path.getsize(path)
        self.send_response(200)
        self.send_header("Content-Length", str(size // 2 if mode == "head-lies" else size))
        if not NORANGE:
            self.send_header("Accept-Ranges", "bytes")
        self.end_headers()


http.server.ThreadingHTTPServer.daemon_threads = True
if HOSTILE:
    # The other host a redirect points to (all of 127.0.0.0/8 is loopback on Linux); absent elsewhere.
    try:
        other = http.server.ThreadingHTTPServer(("127.0.0.2", PORT), Handler)
        threading.Thread(target=other.serve_forever, daemon=True).start()
    except OSError:
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
