#!/usr/bin/env python3
"""A GPS receiver on a pty, and gpsd reading it, for the location tests.

Usage: gpsd_rig.py SCRATCH_DIR TRACK_JSON [RATE_HZ]

Opens a pty and closes its own slave end, so that the slave is open only while gpsd has it
open. Starts `gpsd -N -S PORT -F SCRATCH/control -P SCRATCH/gpsd.pid PTY` on a free port of
its own (never 2947: a system gpsd may hold it), without -n, so gpsd opens the device only
while a client watches and closes it once none does (gpsd.c: RELEASE_TIMEOUT, 60 s). Its log
is SCRATCH/gpsd.log.

While the slave is open (the master sees no hang-up) it writes one NMEA epoch (RMC, GGA,
GSA) RATE_HZ times a second (default 5), stamped with the current time, so gpsd's fixes carry
the wall clock. TRACK_JSON is a file holding a list of steps, each [lat, lon, hdop, epochs]
or [null, epochs] (no fix), each written for that many epochs; the last one repeats forever.
gpsd turns HDOP into `eph` as hdop x 19 m (P_UERE_NO_DGPS in gpsd's libgpsd_core.c,
gpsd_error_model). The track starts over each time the slave is opened, as a receiver
powered up afresh would.

Stdout, a line each: `ready PTY PORT PID` once gpsd answers, `open` and `closed` as the
slave is opened and closed, `killed` after a kill. Stdin, a line each: `kill` (SIGKILL gpsd),
`start` (start it again on the same port). Stdin's end, or SIGTERM, stops gpsd and the rig.
"""
import datetime
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time


def checksum(body):
    value = 0
    for ch in body.encode():
        value ^= ch
    return "%02X" % value


def sentence(body):
    return "$%s*%s\r\n" % (body, checksum(body))


def coordinate(value, lat):
    hemisphere = ("N" if value >= 0 else "S") if lat else ("E" if value >= 0 else "W")
    value = abs(value)
    degrees = int(value)
    minutes = (value - degrees) * 60
    text = ("%02d%09.6f" if lat else "%03d%09.6f") % (degrees, minutes)
    return text, hemisphere


def epoch(point, now):
    hms = now.strftime("%H%M%S") + ".%02d" % (now.microsecond // 10000)
    dmy = now.strftime("%d%m%y")
    if point is None:
        return "".join([
            sentence("GPRMC,%s,V,,,,,,,%s,,,N" % (hms, dmy)),
            sentence("GPGGA,%s,,,,,0,00,99.99,,,,,," % hms),
            sentence("GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"),
        ])
    lat, lon, hdop = point
    la, ns = coordinate(lat, True)
    lo, ew = coordinate(lon, False)
    return "".join([
        sentence("GPRMC,%s,A,%s,%s,%s,%s,0.0,0.0,%s,,,A" % (hms, la, ns, lo, ew, dmy)),
        sentence("GPGGA,%s,%s,%s,%s,%s,1,08,%.2f,50.0,M,46.9,M,," % (hms, la, ns, lo, ew, hdop)),
        sentence("GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,%.2f,%.2f,%.2f" % (hdop * 1.5, hdop, hdop)),
    ])


def slave_open(master):
    poller = select.poll()
    poller.register(master, select.POLLIN | select.POLLHUP)
    for _, events in poller.poll(0):
        if events & select.POLLHUP:
            return False
    return True


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def answers(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.settimeout(2)
            return connection.recv(64).startswith(b'{"class":"VERSION"')
    except OSError:
        return False


class Daemon:
    def __init__(self, scratch, pty):
        self.scratch = scratch
        self.pty = pty
        self.port = None
        self.process = None

    def start(self):
        for _ in range(10):
            port = self.port or free_port()
            log = open(os.path.join(self.scratch, "gpsd.log"), "ab")
            self.process = subprocess.Popen(
                ["gpsd", "-N", "-S", str(port), "-F", os.path.join(self.scratch, "control"),
                 "-P", os.path.join(self.scratch, "gpsd.pid"), self.pty],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log)
            log.close()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.process.poll() is None:
                if answers(port):
                    self.port = port
                    print("ready %s %d %d" % (self.pty, port, self.process.pid), flush=True)
                    return
                time.sleep(0.05)
            self.kill()
            time.sleep(0.2)
        sys.exit("gpsd did not start: see %s" % os.path.join(self.scratch, "gpsd.log"))

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


def main():
    scratch = sys.argv[1]
    track = []
    for step in json.load(open(sys.argv[2])):
        point = None if step[0] is None else tuple(step[:3])
        track.extend([point] * max(1, int(step[-1])))
    rate = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
    master, slave = os.openpty()
    path = os.ttyname(slave)
    # gpsd started as root drops to an unprivileged user before it opens a device.
    os.chmod(path, 0o666)
    os.close(slave)
    daemon = Daemon(scratch, path)
    signal.signal(signal.SIGTERM, lambda *_: (daemon.kill(), os._exit(0)))
    daemon.start()
    index = 0
    was_open = False
    commands = b""
    while True:
        while select.select([sys.stdin], [], [], 0)[0]:
            chunk = os.read(sys.stdin.fileno(), 256)
            if not chunk:
                daemon.kill()
                return
            commands += chunk
            while b"\n" in commands:
                command, commands = commands.split(b"\n", 1)
                if command == b"kill":
                    daemon.kill()
                    print("killed", flush=True)
                elif command == b"start":
                    daemon.start()
        is_open = slave_open(master)
        if is_open != was_open:
            print("open" if is_open else "closed", flush=True)
            was_open = is_open
            index = 0
        if not is_open:
            time.sleep(0.05)
            continue
        # Whatever gpsd writes to the device (its probes) is read and dropped.
        try:
            while select.select([master], [], [], 0)[0]:
                if not os.read(master, 4096):
                    break
        except OSError:
            pass
        point = track[min(index, len(track) - 1)]
        index += 1
        try:
            os.write(master, epoch(point, datetime.datetime.now(datetime.timezone.utc)).encode())
        except OSError:
            pass
        time.sleep(1.0 / rate)


if __name__ == "__main__":
    main()
