#!/usr/bin/python3
"""The app the lifecycle integration tests start under `joule run` (Python 3 stdlib only).

Appends one JSON line per fact to --log, each with "t": time.time(), written with a single
write(2) and fsynced (so a SIGKILL or a freeze loses nothing already logged):
  {"t", "ready": true, "pid", "connected"}   once, after connecting (false: --no-connect,
                                              no JOULE_LIFECYCLE_SOCKET, or connect failed
                                              and then "error" says why)
  {"t", "heard": OBJECT}                      every packet from joule, replies included
  {"t", "did": REQUEST, "taskId": K|null}    every request sent (taskId null for begin and
                                              backgroundTimeRemaining: not known yet)
  {"t", "signal": "SIGTERM"}                  then exit 0, unless --ignore-term
Timers run on time.monotonic() and are checked after every wake-up, so after SIGSTOP/SIGCONT
or a cgroup freeze (time jumps) overdue timers simply fire at once.
"""
import argparse
import json
import math
import os
import select
import signal
import socket
import sys
import time


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--log", required=True, help="JSON lines file to append to")
    p.add_argument("--no-connect", action="store_true", help="never connect to the socket")
    p.add_argument("--task-on-background", action="store_true",
                   help='on didEnterBackground send beginBackgroundTask name "work"')
    p.add_argument("--task-seconds", type=float,
                   help="end each task S seconds after it began (default: never: a leak)")
    p.add_argument("--end-on-expire", action="store_true",
                   help="end open tasks on backgroundTimeWillExpire")
    p.add_argument("--crash-after", type=float,
                   help="os._exit(3) S seconds after the first task began, closing nothing")
    p.add_argument("--ask-remaining", action="store_true",
                   help="send backgroundTimeRemaining after every event heard")
    p.add_argument("--busy", action="store_true",
                   help="burn CPU continuously, polling the socket every ~10 ms")
    p.add_argument("--ignore-term", action="store_true", help="log SIGTERM and keep running")
    p.add_argument("--exit-after", type=float, help="exit after S seconds")
    p.add_argument("--exit-code", type=int, default=0, help="status for --exit-after")
    args = p.parse_args()

    log_fd = os.open(args.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def log(**fields):
        # One write(2) per line: a signal handler logging in between cannot split a line.
        os.write(log_fd, (json.dumps({"t": time.time(), **fields}) + "\n").encode())
        os.fsync(log_fd)

    def on_term(signum, frame):
        log(signal="SIGTERM")
        if not args.ignore_term:
            os._exit(0)

    signal.signal(signal.SIGTERM, on_term)

    start = time.monotonic()
    sock, error = None, None
    path = os.environ.get("JOULE_LIFECYCLE_SOCKET")
    if path and not args.no_connect:
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            sock.connect(path)
        except OSError as e:
            sock, error = None, "%s: %s" % (path, e)
    log(ready=True, pid=os.getpid(), connected=sock is not None, **({"error": error} if error else {}))

    tasks = {}        # open task id -> monotonic time it began
    pending = []      # requests awaiting a reply, oldest first: "begin" or "remaining"
    crash_at = None   # set when the first task begins

    def send(request, task_id=None):
        if sock is None:
            return False
        try:
            sock.send(json.dumps(request).encode())
        except OSError:
            return False  # joule is gone; nothing was sent, so nothing is logged
        log(did=request["request"], taskId=task_id)
        return True

    def end_task(task_id):
        if tasks.pop(task_id, None) is not None:
            send({"request": "endBackgroundTask", "taskId": task_id}, task_id)

    def handle(packet):
        nonlocal crash_at
        try:
            message = json.loads(packet)
        except ValueError:
            log(heard=packet.decode("utf-8", "replace"))
            return
        log(heard=message)
        if not isinstance(message, dict):
            return
        event = message.get("event")
        if event is not None:
            if event == "didEnterBackground" and args.task_on_background:
                if send({"request": "beginBackgroundTask", "name": "work"}):
                    pending.append("begin")
            elif event == "backgroundTimeWillExpire" and args.end_on_expire:
                for task_id in sorted(tasks):
                    end_task(task_id)
            if args.ask_remaining and send({"request": "backgroundTimeRemaining"}):
                pending.append("remaining")
        elif pending:
            if pending.pop(0) == "begin" and message.get("taskId") is not None:
                tasks[message["taskId"]] = time.monotonic()
                if args.crash_after is not None and crash_at is None:
                    crash_at = time.monotonic() + args.crash_after

    def next_deadline():
        times = [began + args.task_seconds for began in tasks.values()] if args.task_seconds is not None else []
        if crash_at is not None:
            times.append(crash_at)
        if args.exit_after is not None:
            times.append(start + args.exit_after)
        return min(times) if times else None

    def fire_timers():
        now = time.monotonic()
        if crash_at is not None and now >= crash_at:
            os._exit(3)
        if args.exit_after is not None and now >= start + args.exit_after:
            sys.exit(args.exit_code)
        if args.task_seconds is not None:
            for task_id, began in sorted(tasks.items()):
                if now >= began + args.task_seconds:
                    end_task(task_id)

    poller = select.poll()
    if sock is not None:
        poller.register(sock, select.POLLIN)
    x = 1
    while True:
        fire_timers()
        if args.busy:
            until = time.monotonic() + 0.01
            while time.monotonic() < until:
                for _ in range(1000):
                    x = (x * 1103515245 + 12345) % 2147483648
            ready = poller.poll(0)
        else:
            deadline = next_deadline()
            timeout = None if deadline is None else max(0, math.ceil((deadline - time.monotonic()) * 1000))
            ready = poller.poll(timeout)
        if not ready:
            continue
        while sock is not None:  # drain every queued packet
            try:
                packet = sock.recv(65536, socket.MSG_DONTWAIT)
            except BlockingIOError:
                break
            except OSError:
                packet = b""
            if not packet:
                # joule closed the socket (its tasks are over): keep running without it.
                poller.unregister(sock)
                sock.close()
                sock = None
                tasks.clear()
                pending.clear()
                break
            handle(packet)


if __name__ == "__main__":
    main()
