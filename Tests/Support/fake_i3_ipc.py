#!/usr/bin/env python3
"""A misbehaving i3-ipc server on a Unix socket: fake_i3_ipc.py SOCKET MODE.

It accepts one connection, answers SUBSCRIBE (with success false in mode "refuse", or not at
all in mode "silent") and then answers the first GET_TREE as MODE says: "magic" (a wrong magic),
"huge" (a 2 GiB length), "truncated" (half a header, then close), "badjson", or "close"."""
import os
import socket
import struct
import sys
import time

path, mode = sys.argv[1], sys.argv[2]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path + ".tmp")
server.listen(1)
os.rename(path + ".tmp", path)
connection, _ = server.accept()


def receive():
    header = b""
    while len(header) < 14:
        chunk = connection.recv(14 - len(header))
        if not chunk:
            sys.exit(0)
        header += chunk
    length, kind = struct.unpack("<II", header[6:])
    payload = b""
    while len(payload) < length:
        payload += connection.recv(length - len(payload))
    return kind, payload


def send(kind, payload):
    connection.sendall(b"i3-ipc" + struct.pack("<II", len(payload), kind) + payload)


kind, _ = receive()
assert kind == 2
if mode == "silent":
    time.sleep(30)
    sys.exit(0)
send(2, b'{"success":false}' if mode == "refuse" else b'{"success":true}')
kind, _ = receive()
assert kind == 4
if mode == "magic":
    connection.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
elif mode == "huge":
    connection.sendall(b"i3-ipc" + struct.pack("<II", 0x7FFFFFFF, 4))
elif mode == "truncated":
    connection.sendall(b"i3-ipc\x10\x00")
elif mode == "badjson":
    send(4, b'{"nodes": [')
time.sleep(0.2)
connection.close()
