#!/usr/bin/python3
"""Static file server for `make bench`'s transfer row: GET /NAME answers 200 with the whole of
DIR/NAME through sendfile(2) (no copies through Python), with Content-Length, a strong ETag and
Last-Modified, as a real server would. No Range, no faults: it exists to be faster than the
clients it measures, which the fault server (Python writes) is not.

Usage: bench_file_server.py DIR PORTFILE   binds 127.0.0.1:0, writes the port to PORTFILE.
"""
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = os.path.join(sys.argv[1], os.path.basename(self.path.split("?", 1)[0]))
        try:
            f = open(path, "rb")
        except OSError:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with f:
            info = os.fstat(f.fileno())
            self.send_response(200)
            self.send_header("Content-Length", str(info.st_size))
            self.send_header("ETag", f'"{info.st_ino:x}-{info.st_size:x}-{info.st_mtime_ns:x}"')
            self.send_header("Last-Modified", time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(info.st_mtime)))
            self.end_headers()
            try:
                self.connection.sendfile(f)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True  # a client that hangs up mid-file must not keep us alive
partial = sys.argv[2] + ".tmp"
with open(partial, "w") as out:
    out.write(f"{server.server_address[1]}\n")
os.replace(partial, sys.argv[2])  # whole or absent for a reader polling for it
server.serve_forever()
