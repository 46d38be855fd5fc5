#!/usr/bin/env python3
"""joule's app lifecycle protocol from Python, stdlib only: joule run -- python3 examples/lifecycle_app.py
Prints every packet; in the background begins a task, works in small steps and ends it; on
backgroundTimeWillExpire ends it at once (the last chance before joule suspends the app)."""
import json, os, socket

sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
sock.connect(os.environ["JOULE_LIFECYCLE_SOCKET"])
sock.settimeout(0.1)  # wake up between packets to do a step of work
send = lambda request: sock.send(json.dumps(request).encode())
task, steps = None, 0

def end_task():
    global task
    if task is not None:
        send({"request": "endBackgroundTask", "taskId": task})  # no reply comes
        print("ended task", task, flush=True)
        task = None

while True:
    try:
        packet = sock.recv(4096)
    except socket.timeout:
        steps += 1  # "a little work": 20 steps of 0.1 s while the task is open
        if task is not None and steps >= 20:
            end_task()
        continue
    if not packet:
        break  # joule closed the socket
    message = json.loads(packet)
    print(message, flush=True)
    if message.get("event") == "didEnterBackground" and task is None:
        send({"request": "beginBackgroundTask", "name": "save"})
    elif "taskId" in message:  # the reply; null means refused: no background time left
        task, steps = message["taskId"], 0
    elif message.get("event") == "backgroundTimeWillExpire":
        end_task()
