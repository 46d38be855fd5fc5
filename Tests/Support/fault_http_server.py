#!/usr/bin/python3
"""Fault-injection HTTP/1.1 server for JouleHTTP tests.

Usage: fault_http_server.py LOGFILE
Binds 127.0.0.1:0, prints the port on stdout and writes it to LOGFILE's directory as `port`
(written whole, then renamed, so a reader polling for it never sees half a number; tests send
stdout to /dev/null, since a pipe held by an orphan hangs `swift test`). Dies with its parent.
Appends one JSON line per request to LOGFILE: {"method", "path", "query", "range", "ifRange",
"acceptEncoding", "n"} (n counts requests per path); an upload's line is written once its body
was read and adds "length" (bytes received) and "sha256".

GET serves a deterministic body (byte i of version v is (i*31 + 7 + v) % 251) with a

strong ETag "v<version>-<size>" and a Last-Modified, and honours Range/If-Range properly unless
a fault says otherwise. Faults are query parameters:
  size=N          body length (default 65536)
  cut=N           close the connection after N body bytes of every response
  cutfirst=N      ... of the first response for this path only
  norange=1       ignore Range (always 200 with the whole body)
  etag=change     a new version (ETag, Last-Modified, bytes) on every request
  etag=none       no ETag (Last-Modified only)
  badrange=1      206 whose Content-Range starts one byte after the asked offset
  wrong416=1      answer every Range request with 416 "bytes */(size+7)"
  status=S        answer S with no body (retryafter=V adds Retry-After: V); statusfirst=S once
  location=URL    302 (GET) or 307 (PUT, POST) to URL, as given (file:///etc/shadow, ftp://...);
  redirect=K      302 (GET) or 307 (PUT, POST) to the same URL with redirect=K-1 until K is 0;
                  redirectstatus=S answers S instead
  trickle=R       send the body at about R bytes/s (an upload's body is read at about R bytes/s)
  chunked=1       send a GET body chunked, without Content-Length (cut=N then ends the stream
                  after N bytes without its last chunk: the length cannot be known)
  hang=1          read the request head, then never answer (nor read an upload's body)

PUT and POST read the body (exactly Content-Length bytes) and store it as
`received/<path without slashes>` in LOGFILE's directory, then answer 201 (or the status,
redirect or trickle faults above).
"""
import ctypes
import hashlib
import json
import os
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LOG = open(sys.argv[1], "a", buffering=1)
DIRECTORY = os.path.dirname(os.path.abspath(sys.argv[1]))
LOCK = threading.Lock()
COUNTS = {}


def body(size, version):
    return bytes((i * 31 + 7 + version) % 251 for i in range(size))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def log_request_line(self, url, **extra):
        """Counts the request for its path and logs it; returns n."""
        with LOCK:
            n = COUNTS.get(url.path, 0) + 1
            COUNTS[url.path] = n
            LOG.write(json.dumps({
                "method": self.command, "path": url.path, "query": url.query, "range": self.headers.get("Range"),
                "ifRange": self.headers.get("If-Range"), "acceptEncoding": self.headers.get("Accept-Encoding"), "n": n,
                **extra,
            }) + "\n")
        return n

    def redirect_or_status(self, url, q, n, redirect_status):
        """Answers a redirect or status fault; True when it did."""
        if "location" in q:
            self.answer(int(q.get("redirectstatus", redirect_status)), headers={"Location": q["location"]})
            return True
        if "redirect" in q and int(q["redirect"]) > 0:
            rest = "&".join(f"{k}={int(v) - 1 if k == 'redirect' else v}" for k, v in q.items())
            self.answer(int(q.get("redirectstatus", redirect_status)), headers={"Location": f"{url.path}?{rest}"})
            return True
        status = q.get("status") or (q.get("statusfirst") if n == 1 else None)
        if status:
            extra = {"Retry-After": q["retryafter"]} if "retryafter" in q else {}
            self.answer(int(status), headers=extra)
            return True
        return False

    def do_PUT(self):
        self.upload()

    def do_POST(self):
        self.upload()

    def upload(self):
        url = urlsplit(self.path)
        q = {k: v[-1] for k, v in parse_qs(url.query).items()}
        if q.get("hang"):
            self.log_request_line(url)
            time.sleep(3600)
            return
        remaining = int(self.headers.get("Content-Length", 0))
        digest, length = hashlib.sha256(), 0
        name = url.path.strip("/").replace("/", "_") or "root"
        os.makedirs(os.path.join(DIRECTORY, "received"), exist_ok=True)
        rate = float(q["trickle"]) if q.get("trickle") else None
        with open(os.path.join(DIRECTORY, "received", name), "wb") as out:
            while remaining > 0:
                piece = max(1, int(rate / 10)) if rate else 1 << 16
                chunk = self.rfile.read(min(piece, remaining))
                if not chunk:
                    break
                out.write(chunk)
                digest.update(chunk)
                length += len(chunk)
                remaining -= len(chunk)
                if rate:
                    time.sleep(len(chunk) / rate)
        n = self.log_request_line(url, length=length, sha256=digest.hexdigest())
        if remaining > 0:
            # The client went away mid-body: nothing to answer.
            self.close_connection = True
            return
        if not self.redirect_or_status(url, q, n, 307):
            self.answer(201)

    def do_GET(self):
        url = urlsplit(self.path)
        q = {k: v[-1] for k, v in parse_qs(url.query).items()}
        n = self.log_request_line(url)
        if q.get("hang"):
            time.sleep(3600)
            return
        if self.redirect_or_status(url, q, n, 302):
            return
        size = int(q.get("size", 65536))
        version = n if q.get("etag") == "change" else 0
        data = body(size, version)
        etag = f'"v{version}-{size}"'
        lastmod = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(1_790_000_000 + version))
        validators = {"Last-Modified": lastmod}
        if q.get("etag") != "none":
            validators["ETag"] = etag
        start = None
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes=") and rng.endswith("-") and not q.get("norange"):
            if_range = self.headers.get("If-Range")
            if if_range is None or if_range == validators.get("ETag") or if_range == lastmod:
                start = int(rng[6:-1])
        if start is not None and q.get("wrong416"):
            return self.answer(416, headers={"Content-Range": f"bytes */{size + 7}", **validators})
        if start is not None and start >= size:
            return self.answer(416, headers={"Content-Range": f"bytes */{size}", **validators})
        if start is not None:
            shown = start + 1 if q.get("badrange") else start
            headers = {"Content-Range": f"bytes {shown}-{size - 1}/{size}", **validators}
            return self.answer(206, data[start:], headers, q, n)
        return self.answer(200, data, validators, q, n)

    def answer(self, status, payload=b"", headers=None, q=None, n=0):
        q = q or {}
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        chunked = bool(q.get("chunked")) and status in (200, 206)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        cut = q.get("cut") or (q.get("cutfirst") if n == 1 else None)
        try:
            if chunked:
                sent = payload[: int(cut)] if cut is not None else payload
                for i in range(0, len(sent), 1 << 14):
                    piece = sent[i : i + (1 << 14)]
                    self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
                self.wfile.flush()
                if cut is not None:
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                else:
                    self.wfile.write(b"0\r\n\r\n")
            elif cut is not None:
                self.wfile.write(payload[: int(cut)])
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
            elif q.get("trickle"):
                # About 20 writes a second, so high rates are not bound by per-byte overhead.
                rate = float(q["trickle"])
                chunk = max(1, int(rate / 20))
                for i in range(0, len(payload), chunk):
                    self.wfile.write(payload[i : i + chunk])
                    self.wfile.flush()
                    time.sleep(chunk / rate)
            else:
                self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class Server(ThreadingHTTPServer):
    daemon_threads = True


# The test process may start us with SIGTERM blocked or ignored; stop when told to, and with
# the test process (PR_SET_PDEATHSIG = 1), so a killed test run leaves no server behind.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
signal.signal(signal.SIGTERM, signal.SIG_DFL)
ctypes.CDLL(None).prctl(1, signal.SIGKILL)
server = Server(("127.0.0.1", 0), Handler)
with open(os.path.join(DIRECTORY, "port.tmp"), "w") as f:
    f.write(f"{server.server_address[1]}\n")
os.rename(os.path.join(DIRECTORY, "port.tmp"), os.path.join(DIRECTORY, "port"))
print(server.server_address[1], flush=True)
server.serve_forever()
