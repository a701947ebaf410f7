"""A loopback HTTP mirror for the tests: serves a directory with Range support (as real mirrors do).

Usage: range_server.py PORT DIR [CUT_NAME]. With CUT_NAME, the first response carrying bytes of that file stops
halfway and drops the connection (a download cut off), so the client must retry and resume with a Range.
Every HEAD and GET of a file is appended to DIR/.requests ("GET name"), so a test can tell what was fetched.

A hostile mirror: the environment variable HOSTILE="name=mode,..." makes the named files misbehave:
  long         a ranged GET answers 206 with the right Content-Range, and a Content-Length 1 MiB more than
               asked for, and sends that much
  endless      a ranged GET answers 206 with the right Content-Range, a Content-Length of 2^50, and never ends
  endless200   every GET answers 200 (Range ignored) with a Content-Length of 2^50, and never ends
  short        a ranged GET declares the full Content-Length but sends half of it and closes, every time
  head-lies    HEAD declares half the real size (the ranged GETs then say otherwise in Content-Range)
  redirect     HEAD and GET answer 302 to the same path on 127.0.0.2 (another host)
A request that arrives for 127.0.0.2 (a redirect followed) creates DIR/.followed.
"""
import http.server
import os
import sys
import threading

PORT, ROOT = int(sys.argv[1]), sys.argv[2]
CUT = sys.argv[3] if len(sys.argv) > 3 else None
HOSTILE = dict(
    item.split("=", 1) for item in os.environ.get("HOSTILE", "").split(",") if "=" in item
)
state = {"cut": False}


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **k):
        super().__init__(*a, directory=ROOT, **k)

    def log_message(self, *a):
        pass

    def note(self, method):
        with open(os.path.join(ROOT, ".requests"), "a") as f:
            f.write(f"{method} {os.path.basename(self.path)}\n")

    def mode(self):
        if self.server.server_address[0] != "127.0.0.1":
            open(os.path.join(ROOT, ".followed"), "w").close()
        return HOSTILE.get(os.path.basename(self.path))

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
        path = self.translate_path(self.path)
        rng = self.headers.get("Range")
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
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
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
        self.wfile.write(body)

    def do_HEAD(self):
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
