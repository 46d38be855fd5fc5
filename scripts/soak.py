#!/usr/bin/python3
"""`make soak`: joule daemon under load and faults for about ten minutes, measured.

The daemon runs live (libudev, no --root) under umockdev's preload on a copy of a fixture tree,
on a private bus, as UPower's integration tests run upowerd. Meanwhile, all at once:
- 8 client processes make SOAK_CALLS (100 000) property reads and GetStatus calls in all;
- the fixture changes SOAK_CHANGES (10 000) times, each announced by a uevent: the battery sweeps
  100 -> 5 % discharging and 5 -> 100 % charging (Low Power Mode on at 20 %, off at 80 %), and
  thermal_zone0 steps between 99 and 108 degrees C across its fair threshold (103);
- SOAK_CHURN (1 000) clients connect, start a GetStatus and disconnect before the answer;
- SOAK_RELOADS (100) SIGHUPs, every other one with a config that does not parse;
- SOAK_TRANSFERS (1 000) transfers are added and cancelled.
Measured: RSS after warm-up and at the end, open descriptors, every call answered, every
property's last PropertiesChanged against a final Get, and the Low Power Mode and thermal
transitions against the script's. The figures go into BENCHMARKS.md (SOAK_REPORT=0: not).

Needs /usr/bin/python3 with dbus-python and GLib (python3-dbus, python3-gi), umockdev and a
joule binary (SOAK_JOULE, default the release build of `make release`). SOAK_IO_STALL=MIB
stalls the disk every 20 s (MIB written with fsync, and a GetHistory call that makes the daemon
write its history meanwhile).
"""
import json
import multiprocessing
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "hw-fixtures", "dell-xps-13-low-battery-discharging")
JOULE = os.environ.get("SOAK_JOULE", os.path.join(ROOT, ".build-release", "release", "joule"))
CALLS = int(os.environ.get("SOAK_CALLS", "100000"))
CHANGES = int(os.environ.get("SOAK_CHANGES", "10000"))
CHURN = int(os.environ.get("SOAK_CHURN", "1000"))
RELOADS = int(os.environ.get("SOAK_RELOADS", "100"))
TRANSFERS = int(os.environ.get("SOAK_TRANSFERS", "1000"))
DURATION = float(os.environ.get("SOAK_SECONDS", "540"))  # how long the fixture script runs
WARMUP = 20.0
MALLOC_STATS = os.environ.get("SOAK_MALLOC_STATS") == "1"
# MiB written with fsync beside the state directory every 20 s, each time with a GetHistory call
# (the daemon writes its pending rows first): a disk stall, as a large link caused once.
IO_STALL_MIB = int(os.environ.get("SOAK_IO_STALL", "0"))
BUS = "org.joule.Energy1"
PATH = "/org/joule/Energy1"
PROPERTIES = ["LowPowerMode", "LowPowerModeSource", "ThermalState", "OnBattery", "Percentage", "WarningLevel"]
BAT = "/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0A:00/power_supply/BAT0"
ZONE = "/devices/virtual/thermal/thermal_zone0"


def log(text):
    print(f"soak: {text}", file=sys.stderr, flush=True)


# --- the testbed -----------------------------------------------------------------------------

def murmur2(data):
    """MurmurHash2 as libudev hashes a subsystem for its socket filter."""
    m, h = 0x5BD1E995, len(data) & 0xFFFFFFFF
    i = 0
    while len(data) - i >= 4:
        k = struct.unpack_from("<I", data, i)[0]
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
        i += 4
    rest = data[i:]
    if len(rest) >= 3:
        h ^= rest[2] << 16
    if len(rest) >= 2:
        h ^= rest[1] << 8
    if len(rest) >= 1:
        h ^= rest[0]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


def uevent(testbed, devpath, subsystem, seqnum):
    """A change uevent to every libudev monitor under umockdev's preload (its event<fd> sockets)."""
    props = b"".join(p.encode() + b"\0" for p in
                     (f"ACTION=change", f"DEVPATH={devpath}", f"SUBSYSTEM={subsystem}", f"SEQNUM={seqnum}"))
    header = b"libudev\0" + struct.pack(">I", 0xFEEDCAFE) + struct.pack("=III", 40, 40, len(props)) \
        + struct.pack(">II", murmur2(subsystem.encode()), 0) + struct.pack("=II", 0, 0)
    sent = 0
    for name in os.listdir(testbed):
        if re.fullmatch(r"event\d+", name):
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
                try:
                    s.sendto(header + props, os.path.join(testbed, name))
                    sent += 1
                except OSError:
                    pass
    return sent


def write(testbed, relative, text):
    with open(os.path.join(testbed, relative.lstrip("/")), "w") as f:
        f.write(text)


# --- clients (separate processes, each its own connection) --------------------------------------

def client_worker(address, count, results):
    import dbus
    bus = dbus.bus.BusConnection(address)
    energy = bus.get_object(BUS, PATH, introspect=False)
    props = dbus.Interface(energy, "org.freedesktop.DBus.Properties")
    iface = dbus.Interface(energy, BUS)
    failures, worst = 0, 0.0
    for i in range(count):
        start = time.monotonic()
        try:
            if i % 2:
                iface.GetStatus(timeout=10)
            else:
                props.Get(BUS, PROPERTIES[i % len(PROPERTIES)], timeout=10)
        except Exception:  # a failed or late call is what is counted
            failures += 1
        worst = max(worst, time.monotonic() - start)
    results.put(("calls", count, failures, worst))


def churn_worker(address, count, results):
    """Connects, sends GetStatus and drops the connection before the reply arrives."""
    import dbus
    dropped = 0
    for _ in range(count):
        bus = dbus.bus.BusConnection(address)
        message = dbus.lowlevel.MethodCallMessage(BUS, PATH, BUS, "GetStatus")
        bus.send_message(message)
        bus.close()
        dropped += 1
    results.put(("churn", dropped, 0, 0.0))


def transfer_worker(address, count, directory, results):
    import dbus
    bus = dbus.bus.BusConnection(address)
    transfers = dbus.Interface(bus.get_object("org.joule.Transfers1", "/org/joule/Transfers1", introspect=False),
                               "org.joule.Transfers1")
    failures = 0
    for n in range(count):
        try:
            request = dbus.Dictionary({
                "url": dbus.String(f"http://127.0.0.1:9/t{n}"),
                "destination": dbus.String(os.path.join(directory, f"t{n}.bin")),
            }, signature="sv")
            identifier = transfers.Add(request, timeout=10)
            transfers.Cancel(identifier, timeout=10)
        except Exception:
            failures += 1
    results.put(("transfers", count, failures, 0.0))


def signal_recorder(address, path, ready):
    """Writes every Energy1 PropertiesChanged and state signal, in bus order, as JSON lines."""
    import dbus
    import dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)
    out = open(path, "a", buffering=1)

    def plain(value):
        if isinstance(value, dbus.Boolean):
            return bool(value)
        if isinstance(value, (dbus.Double,)):
            return float(value)
        return str(value)

    def changed(interface, values, invalidated, **_):
        if interface == BUS:
            out.write(json.dumps({"t": time.time(), "changed": {str(k): plain(v) for k, v in values.items()}}) + "\n")

    def state(*args, member=None, **_):
        out.write(json.dumps({"t": time.time(), "signal": member, "args": [plain(a) for a in args]}) + "\n")

    bus.add_signal_receiver(changed, "PropertiesChanged", "org.freedesktop.DBus.Properties", None, PATH)
    bus.add_signal_receiver(state, None, BUS, None, PATH, member_keyword="member")
    ready.set()
    GLib.MainLoop().run()


# --- the daemon ------------------------------------------------------------------------------

def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def rss_by_mapping(pid):
    """Resident KiB by mapping (/proc/PID/smaps): a file's path, or [heap], [stack] and
    [anon] (glibc's other malloc arenas and thread stacks are anonymous), so that growth can be
    told apart: a file mapped in, the main heap, or anonymous memory."""
    sizes, name = {}, None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            fields = line.split()
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                name = fields[5] if len(fields) > 5 else "[anon]"
                if name.startswith("[stack"):
                    name = "[stack]"
            elif fields[0] == "Rss:":
                sizes[name] = sizes.get(name, 0) + int(fields[1])
    return sizes


def growth(before, after, top=4):
    """The mappings whose resident size changed most, as 'name +N KiB'."""
    deltas = {k: after.get(k, 0) - before.get(k, 0) for k in set(before) | set(after)}
    ranked = sorted((d, k) for k, d in deltas.items() if d)
    ranked = sorted(ranked, key=lambda item: -abs(item[0]))[:top]
    return [f"{os.path.basename(k) if k.startswith('/') else k} {d:+d} KiB" for d, k in ranked]


def malloc_totals(pid, log_path):
    """glibc's own account (SOAK_MALLOC_STATS=1): gdb calls malloc_stats() in the daemon, which
    prints to its stderr (the log); returns the last (system bytes, in use bytes) totals, or
    None. In-use bytes that grow are memory still referenced; system bytes that grow alone are
    free memory the arenas keep."""
    subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "call (void)malloc_stats()"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    time.sleep(0.5)
    with open(log_path) as f:
        text = f.read()
    totals = re.findall(r"Total \(incl\. mmap\):\s*system bytes\s*=\s*(\d+)\s*in use bytes\s*=\s*(\d+)", text)
    return tuple(int(v) // 1024 for v in totals[-1]) if totals else None


def unconnected_unix_sockets():
    """Inodes of unix sockets with no peer and no path (/proc/net/unix state 01, no name)."""
    inodes = set()
    with open("/proc/net/unix") as f:
        next(f)
        for line in f:
            fields = line.split()
            if len(fields) == 7 and fields[5] == "01":
                inodes.add(fields[6])
    return inodes


def descriptors(pid):
    """Open descriptors by kind: `own` is joule's, the other two are not its state:
    - the process sampler's /proc/PID handles, which follow the machine's process table (they
      are capped at half of RLIMIT_NOFILE and closed when a process exits);
    - unconnected, unnamed unix sockets: umockdev's preload leaks one whenever it tries its
      ioctl emulation socket ($UMOCKDEV_DIR/ioctl/_default), which this testbed lacks (strace
      shows it after each NSS lookup; the same calls on a live daemon leave the count flat)."""
    fds = os.listdir(f"/proc/{pid}/fd")
    leaked = unconnected_unix_sockets()
    own = proc = umockdev = 0
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("/proc/"):
            proc += 1
        elif target.startswith("socket:[") and target[8:-1] in leaked:
            umockdev += 1
        else:
            own += 1
    return {"own": own, "procHandles": proc, "umockdevSockets": umockdev}


GOOD_CONFIG = "lowPowerMode:\n  lowPowerAt: 20\n  lowPowerOffAt: 80\n  actuators: []\n"
BAD_CONFIG = "lowPowerMode:\n  lowPowerAt: [twenty\n"


def main():
    if not os.path.exists(JOULE):
        sys.exit(f"soak: no joule at {JOULE} (make release, or SOAK_JOULE=PATH)")
    work = tempfile.mkdtemp(prefix="joule-soak-")
    testbed = os.path.join(work, "testbed")
    shutil.copytree(FIXTURE, testbed, symlinks=True)
    for d in ("state", "run", "dl"):
        os.makedirs(os.path.join(work, d))
    config = os.path.join(work, "joule.yaml")
    with open(config, "w") as f:
        f.write(GOOD_CONFIG)
    busconf = os.path.join(work, "bus.conf")
    with open(busconf, "w") as f:
        f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path={work}/bus</listen><auth>EXTERNAL</auth>
<limit name="max_completed_connections">4096</limit><limit name="max_connections_per_user">4096</limit>
<policy context="default"><allow user="*"/><allow send_destination="*" eavesdrop="true"/>
<allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
""")
    address = f"unix:path={work}/bus"
    bus = subprocess.Popen(["dbus-daemon", f"--config-file={busconf}", "--nofork", "--nopidfile"])
    for _ in range(500):
        if os.path.exists(f"{work}/bus"):
            break
        time.sleep(0.01)
    time.sleep(0.2)
    recorded = os.path.join(work, "signals.jsonl")
    ready = multiprocessing.Event()
    recorder = multiprocessing.Process(target=signal_recorder, args=(address, recorded, ready), daemon=True)
    recorder.start()
    ready.wait(10)
    env = dict(os.environ, UMOCKDEV_DIR=testbed, LD_PRELOAD="libumockdev-preload.so.0",
               DBUS_SYSTEM_BUS_ADDRESS=address, JOULE_STATE_DIR=os.path.join(work, "state"),
               JOULE_RUNTIME_DIR=os.path.join(work, "run"))
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    env.pop("NOTIFY_SOCKET", None)
    daemon_log = open(os.path.join(work, "daemon.log"), "w")
    command = [JOULE, "daemon", "--config", config]
    if os.environ.get("SOAK_ROOT") == "1":
        # Diagnosis only: the fixture read with --root (polling, no uevents) and no umockdev in
        # the process, to tell its memory apart from joule's; transitions are then missed.
        env.pop("LD_PRELOAD")
        command += ["--root", testbed]
    daemon = subprocess.Popen(command, env=env, stderr=daemon_log, stdout=daemon_log)
    try:
        figures = run(work, testbed, address, config, daemon, recorded)
    finally:
        if daemon.poll() is None:
            daemon.send_signal(signal.SIGTERM)
            try:
                daemon.wait(30)
            except subprocess.TimeoutExpired:
                daemon.kill()
        recorder.terminate()
        bus.terminate()
    figures["daemonExit"] = daemon.returncode
    print(json.dumps(figures, indent=2))
    if os.environ.get("SOAK_REPORT", "1") != "0":
        report(figures)
    if os.environ.get("SOAK_KEEP") == "1":  # the daemon's log, the signals and the testbed
        log(f"kept {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    ok = figures["verdict"] == "pass"
    sys.exit(0 if ok else 1)


def wait_ready(work):
    for _ in range(300):
        with open(os.path.join(work, "daemon.log")) as f:
            if "ready: " in f.read():
                return True
        time.sleep(0.1)
    return False


def run(work, testbed, address, config, daemon, recorded):
    if not wait_ready(work):
        with open(os.path.join(work, "daemon.log")) as f:
            sys.exit("soak: the daemon never became ready:\n" + f.read())
    pid = daemon.pid
    # Warm-up: every kind of work once, so that lazily made state is made before the baseline.
    results = multiprocessing.Queue()
    warm = [multiprocessing.Process(target=client_worker, args=(address, 200, results)),
            multiprocessing.Process(target=transfer_worker, args=(address, 5, os.path.join(work, "dl"), results)),
            multiprocessing.Process(target=churn_worker, args=(address, 20, results))]
    for p in warm:
        p.start()
    for p in warm:
        p.join()
    for _ in warm:
        results.get()
    # The fixture's kinds of change once each, so their code and state are in place too: Low
    # Power Mode off and on again, the thermal state up and down, a config that does not parse.
    with open(os.path.join(testbed, f"sys{BAT}/energy_full")) as f:
        full = int(f.read().strip())

    def battery(percent, status, seq):
        write(testbed, f"/sys{BAT}/capacity", f"{percent}\n")
        write(testbed, f"/sys{BAT}/energy_now", f"{full * percent // 100}\n")
        write(testbed, f"/sys{BAT}/status", f"{status}\n")
        uevent(testbed, BAT, "power_supply", seq)

    def signals(member):
        with open(recorded) as f:
            return sum(1 for line in f if f'"signal": "{member}"' in line)

    def until(member, count):
        deadline = time.monotonic() + 30
        while signals(member) < count and time.monotonic() < deadline:
            time.sleep(0.1)

    power, thermal = signals("PowerStateDidChange"), signals("ThermalStateDidChange")
    battery(90, "Charging", 10)
    until("PowerStateDidChange", power + 1)
    battery(14, "Discharging", 11)
    until("PowerStateDidChange", power + 2)
    write(testbed, f"/sys{ZONE}/temp", "108000\n")
    until("ThermalStateDidChange", thermal + 1)
    write(testbed, f"/sys{ZONE}/temp", "99000\n")
    until("ThermalStateDidChange", thermal + 2)
    with open(config, "w") as f:
        f.write(BAD_CONFIG)
    daemon.send_signal(signal.SIGHUP)
    time.sleep(1)
    with open(config, "w") as f:
        f.write(GOOD_CONFIG)
    daemon.send_signal(signal.SIGHUP)
    time.sleep(WARMUP)
    warm_until = time.time()  # signals before this are the warm-up's, and so is the log so far
    warm_log = os.path.getsize(os.path.join(work, "daemon.log"))
    baseline_rss, baseline_kinds, baseline_maps = rss_kib(pid), descriptors(pid), rss_by_mapping(pid)
    daemon_log_path = os.path.join(work, "daemon.log")
    malloc_warm = malloc_totals(pid, daemon_log_path) if MALLOC_STATS else None
    baseline_fds = baseline_kinds["own"]
    log(f"warm: RSS {baseline_rss} KiB, descriptors {baseline_kinds}")

    # The fixture script, in a thread: battery sweeps and thermal steps, each with a uevent.
    expected = {"lowPowerOn": 0, "lowPowerOff": 0, "thermal": 0}
    thermal_steps = []  # (wall time, hot) of every thermal write the script counts
    script_done = threading.Event()

    def fixture_script():
        seq = 1000
        percent, direction = 100, -1
        hot = False
        lpm = None
        interval = DURATION / max(1, CHANGES)
        with open(os.path.join(testbed, f"sys{BAT}/energy_full")) as f:
            full = int(f.read().strip())
        next_thermal = time.monotonic() + 6
        start = time.monotonic()
        write(testbed, f"/sys{ZONE}/temp", "99000\n")
        for n in range(CHANGES):
            percent += direction
            if percent <= 5:
                direction = 1
            elif percent >= 100:
                direction = -1
            status = "Discharging" if direction < 0 else "Charging"
            write(testbed, f"/sys{BAT}/capacity", f"{percent}\n")
            write(testbed, f"/sys{BAT}/energy_now", f"{full * percent // 100}\n")
            write(testbed, f"/sys{BAT}/status", f"{status}\n")
            seq += 1
            uevent(testbed, BAT, "power_supply", seq)
            # The rule the daemon applies: on at <= 20 % discharging, off at >= 80 % charging.
            if status == "Discharging" and percent <= 20 and lpm is not True:
                if lpm is not None:
                    expected["lowPowerOn"] += 1
                lpm = True
            elif status == "Charging" and percent >= 80 and lpm is not False:
                if lpm is not None:
                    expected["lowPowerOff"] += 1
                lpm = False
            now = time.monotonic()
            if now >= next_thermal:
                hot = not hot
                write(testbed, f"/sys{ZONE}/temp", "108000\n" if hot else "99000\n")
                thermal_steps.append((time.time(), hot))
                expected["thermal"] += 1
                next_thermal = now + 6
            target = start + (n + 1) * interval
            delay = target - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        if hot:  # end nominal, held long enough to be seen
            write(testbed, f"/sys{ZONE}/temp", "99000\n")
            thermal_steps.append((time.time(), False))
            expected["thermal"] += 1
        script_done.set()

    def reloads():
        for n in range(RELOADS):
            with open(config, "w") as f:
                f.write(BAD_CONFIG if n % 2 else GOOD_CONFIG)
            daemon.send_signal(signal.SIGHUP)
            time.sleep(DURATION / max(1, RELOADS))
        with open(config, "w") as f:
            f.write(GOOD_CONFIG)
        daemon.send_signal(signal.SIGHUP)

    stalls = []  # seconds each injected stall took

    def io_staller():
        scratch = os.path.join(work, "stall")
        while IO_STALL_MIB and not script_done.wait(20):
            began = time.monotonic()
            dd = subprocess.Popen(["dd", "if=/dev/zero", f"of={scratch}", "bs=1M", f"count={IO_STALL_MIB}", "conv=fsync"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
            subprocess.run(["busctl", f"--address={address}", "call", BUS, PATH, BUS, "GetHistory", "dd", "0", str(time.time())],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
            dd.wait()
            os.unlink(scratch)
            stalls.append(round(time.monotonic() - began, 1))

    samples = []

    def sampler():
        while not script_done.is_set():
            samples.append((time.monotonic(), rss_kib(pid), descriptors(pid)["own"]))
            time.sleep(5)

    per_client = CALLS // 8
    workers = [multiprocessing.Process(target=client_worker, args=(address, per_client, results)) for _ in range(8)]
    workers.append(multiprocessing.Process(target=churn_worker, args=(address, CHURN, results)))
    workers.append(multiprocessing.Process(target=transfer_worker, args=(address, TRANSFERS, os.path.join(work, "dl"), results)))
    threads = [threading.Thread(target=fixture_script), threading.Thread(target=reloads), threading.Thread(target=sampler),
               threading.Thread(target=io_staller)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for p in workers:
        p.start()
    tallies = {}
    for _ in workers:
        kind, count, failures, worst = results.get()
        total = tallies.setdefault(kind, [0, 0, 0.0])
        total[0] += count
        total[1] += failures
        total[2] = max(total[2], worst)
    for p in workers:
        p.join()
    for t in threads:
        t.join()
    # Settle: the last thermal step and reloads are read, then the figures.
    time.sleep(12)
    elapsed = time.monotonic() - started
    end_rss, end_kinds, end_maps = rss_kib(pid), descriptors(pid), rss_by_mapping(pid)
    malloc_end = malloc_totals(pid, daemon_log_path) if MALLOC_STATS else None
    end_fds = end_kinds["own"]

    import dbus
    bus = dbus.bus.BusConnection(address)
    props = dbus.Interface(bus.get_object(BUS, PATH, introspect=False), "org.freedesktop.DBus.Properties")
    final = {k: (bool(v) if isinstance(v, dbus.Boolean) else float(v) if isinstance(v, dbus.Double) else str(v))
             for k, v in props.GetAll(BUS).items()}
    last, seen = {}, {"lowPowerOn": 0, "lowPowerOff": 0, "thermal": 0}
    thermal_signals = []
    with open(recorded) as f:
        for line in f:
            event = json.loads(line)
            if event["t"] < warm_until:
                continue
            if "changed" in event:
                last.update(event["changed"])
            elif event["signal"] == "PowerStateDidChange":
                seen["lowPowerOn" if event["args"][0] else "lowPowerOff"] += 1
            elif event["signal"] == "ThermalStateDidChange":
                seen["thermal"] += 1
                thermal_signals.append((event["t"], event["args"][0] != "nominal"))
    # A step is missed when no signal of its direction came before the next step.
    missed = []
    for i, (at, hot) in enumerate(thermal_steps):
        until = thermal_steps[i + 1][0] if i + 1 < len(thermal_steps) else float("inf")
        if not any(at <= t < until and h == hot for t, h in thermal_signals):
            missed.append(f"{'hot' if hot else 'nominal'} at +{at - thermal_steps[0][0]:.0f} s")
    mismatches = {k: (last.get(k), final[k]) for k in PROPERTIES if k in last and last[k] != final[k]}
    with open(os.path.join(work, "daemon.log"), "rb") as f:
        f.seek(warm_log)
        after_warm_up = f.read().decode("utf-8", "replace")
    peak_rss = max([s[1] for s in samples] + [end_rss])
    fds_seen = sorted({s[2] for s in samples} | {end_fds})
    figures = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "seconds": round(elapsed),
        "joule": JOULE,
        "calls": tallies.get("calls", [0, 0, 0])[0], "callFailures": tallies.get("calls", [0, 0, 0])[1],
        "worstCallSeconds": round(tallies.get("calls", [0, 0, 0.0])[2], 3),
        "churnedClients": tallies.get("churn", [0])[0],
        "transfersAddedAndCancelled": tallies.get("transfers", [0, 0])[0] - tallies.get("transfers", [0, 0])[1],
        "transferFailures": tallies.get("transfers", [0, 0])[1],
        "fixtureChanges": CHANGES, "reloads": RELOADS,
        "reloadsRefused": after_warm_up.count("keeping the old config"),
        "rssWarmKiB": baseline_rss, "rssEndKiB": end_rss, "rssPeakKiB": peak_rss,
        "rssGrowthKiB": end_rss - baseline_rss, "rssGrowthByMapping": growth(baseline_maps, end_maps),
        "mallocSystemInUseKiB": {"warm": malloc_warm, "end": malloc_end},
        "descriptorsWarm": baseline_fds, "descriptorsEnd": end_fds, "descriptorsSeen": fds_seen,
        "descriptorKindsWarm": baseline_kinds, "descriptorKindsEnd": end_kinds,
        "propertyMismatches": mismatches,
        "transitionsExpected": expected, "transitionsSeen": seen, "thermalStepsMissed": missed[:10],
        "daemonAlive": daemon.poll() is None,
        "ioStallSeconds": stalls,
    }
    verdicts = [
        figures["callFailures"] == 0,
        figures["transferFailures"] == 0,
        figures["rssGrowthKiB"] <= 1024,
        end_fds == baseline_fds,
        not mismatches,
        seen == expected,
        figures["daemonAlive"],
    ]
    figures["verdict"] = "pass" if all(verdicts) else "fail"
    return figures


def malloc_row(totals):
    """The glibc heap row, when SOAK_MALLOC_STATS=1 measured it (else nothing)."""
    warm, end = totals["warm"], totals["end"]
    if not warm or not end:
        return ""
    return (f"| glibc heap (malloc_stats through gdb): held; in use | — | {warm[0]} → {end[0]} KiB; "
            f"{warm[1]} → {end[1]} KiB |\n")


def report(f):
    path = os.path.join(ROOT, "BENCHMARKS.md")
    with open(path) as fh:
        text = fh.read()
    exp, seen = f["transitionsExpected"], f["transitionsSeen"]
    section = f"""## Soak (`make soak`)

Written by `make soak` (scripts/soak.py) on {f['date']}: `joule daemon` ({os.path.relpath(f['joule'], ROOT)}) under umockdev on
a private bus for {f['seconds']} s, with everything below at once. Verdict: **{f['verdict']}**.

| Load | Count | Failed |
|---|---|---|
| property reads and `GetStatus` from 8 clients | {f['calls']:,} | {f['callFailures']} (slowest answer {f['worstCallSeconds']} s) |
| fixture changes with a uevent (battery 100 → 5 → 100 %, thermal steps) | {f['fixtureChanges']:,} | — |
| clients that disconnect before the answer | {f['churnedClients']:,} | — |
| SIGHUP reloads, every other one a config that does not parse | {f['reloads']} | {f['reloadsRefused']} refused, the old config kept |
| transfers added and cancelled | {f['transfersAddedAndCancelled']:,} | {f['transferFailures']} |

| Measure | Target | Measured |
|---|---|---|
| RSS growth after warm-up | ≤ 1 MiB | {f['rssGrowthKiB']} KiB ({f['rssWarmKiB']} → {f['rssEndKiB']} KiB, peak {f['rssPeakKiB']} KiB) |
| where the RSS grew | — | {'; '.join(f['rssGrowthByMapping']) or 'nowhere'} |
{malloc_row(f['mallocSystemInUseKiB'])}| open descriptors (joule's own) | constant | {f['descriptorsWarm']} → {f['descriptorsEnd']} (seen: {', '.join(map(str, f['descriptorsSeen']))}) |
| besides: sampler's /proc handles; umockdev's leaked sockets | follow the process table; not joule's | {f['descriptorKindsWarm']['procHandles']} → {f['descriptorKindsEnd']['procHandles']}; {f['descriptorKindsWarm']['umockdevSockets']} → {f['descriptorKindsEnd']['umockdevSockets']} |
| last PropertiesChanged = final Get | every property | {'all equal' if not f['propertyMismatches'] else f['propertyMismatches']} |
| Low Power Mode on / off transitions | {exp['lowPowerOn']} / {exp['lowPowerOff']} (the script's) | {seen['lowPowerOn']} / {seen['lowPowerOff']} |
| thermal transitions | {exp['thermal']} (the script's) | {seen['thermal']} |

Reproduce: `make release && SOAK_MALLOC_STATS=1 make soak` (SOAK_CALLS, SOAK_CHANGES, SOAK_CHURN,
SOAK_RELOADS, SOAK_TRANSFERS, SOAK_SECONDS scale it; SOAK_JOULE picks the binary; SOAK_KEEP=1
keeps the daemon's log and the signals; SOAK_ROOT=1 reads the fixture with --root and without
umockdev, to tell umockdev's memory apart from joule's).

"""
    start = text.find("## Soak (`make soak`)")
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section.rstrip("\n") + "\n" + (text[end:] if end >= 0 else "")
    else:
        anchor = text.find("## Fuzzing")
        text = text[:anchor] + section + text[anchor:] if anchor >= 0 else text + "\n" + section
    with open(path, "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
