"""A loopback HTTP mirror for the tests: serves a directory with Range support (as real mirrors do).

Usage: range_server.py PORT DIR [CUT_NAME]. With CUT_NAME, the first response carrying bytes of that file stops
halfway and drops the connection (a download cut off), so the client must retry and resume with a Range.
Every HEAD and GET of a file is appended to DIR/.requests ("GET name"), so a test can tell what was fetched.
"""
import http.server
import os
import sys

PORT, ROOT = int(sys.argv[1]), sys.argv[2]
CUT = sys.argv[3] if len(sys.argv) > 3 else None
state = {"cut": False}


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **k):
        super().__init__(*a, directory=ROOT, **k)

    def log_message(self, *a):
        pass

    def note(self, method):
        with open(os.path.join(ROOT, ".requests"), "a") as f:
            f.write(f"{method} {os.path.basename(self.path)}\n")

    def do_GET(self):
        path = self.translate_path(self.path)
        rng = self.headers.get("Range")
        if os.path.isdir(path) or not os.path.exists(path):
            return super().do_GET()
        self.note("GET")
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
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
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
        if os.path.isdir(path) or not os.path.exists(path):
            return super().do_HEAD()
        self.note("HEAD")
        self.send_response(200)
        self.send_header("Content-Length", str(os.path.getsize(path)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
