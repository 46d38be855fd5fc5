#!/usr/bin/env python3
"""`make bench`: every comparison in one run, written to BENCHMARKS.md.

Rows: per-process CPU sampling (joule-bench vs psutil vs ps), `joule top`'s energy attribution
per sample over 1000+ processes and its whole sample (joule-bench vs a psutil peer doing the
same attribution), `joule status --json` as a
whole process under umockdev (vs a psutil script reading the same files), beacon decoding
throughput (joule vs tshark vs scripts/beacon_decode.py), the self-cost of `joule watch`
and its event latency, `joule daemon` idle beside upowerd (wakeups, CPU, peak RSS,
property-read round trip) on the same battery fixture, HTTPRangeDownloader's download
throughput against curl on the same local file, and `joule daemon` with 100 discretionary
transfers waiting beside an idle one (wakeups, CPU, RSS, the CPU of one re-evaluation), and host
wakeups per minute of `joule beacons monitor` in the test VM for its three mechanisms (offloaded
to the controller through AdvertisementMonitorManager1, BlueZ discovery filtered by joule, joule's
own duty-cycled HCI scan), with no beacon in range and with one going in and out, and `joule location monitor`'s
receiver on-time against an always-on `location watch` over generated 2-hour replays, with the CPU per 1,000
fixes. Medians of repeated runs; ratios are
against peers measured in this same run. Numbers are reported as measured, never tuned: a
missed target says "missed".

Environment: BENCH_WATCH_SECONDS (default 60), BENCH_DAEMON_SECONDS (default 60),
BENCH_DAEMON_READS (default 2000), BENCH_ADVERTS (default 500000), BENCH_SLEEPERS (default
300), BENCH_TRANSFER_MIB (default 256), BENCH_TRANSFER_RUNS (default 5), BENCH_QUEUE_TRANSFERS
(default 100), BENCH_QUEUE_RELOADS (default 20), BENCH_ENERGY_PROCESSES (default 1000: sleepers started for the energy group), BENCH_OUT (default
BENCHMARKS.md), BENCH_ONLY (comma-separated groups out of
sampling,energy,status,beacons,watch,latency,daemon,transfers,queue,beacon-wakeups,location,session; default all: a partial run says so in
the report).
"""
import json, os, platform, random, shutil, signal, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
BIN = os.path.join(ROOT, ".build", "release")
# Whole-process rows measure what `make release` builds and `make install` ships: joule with the
# Swift runtime linked statically (.build-release). joule-bench times work in-process, so it is
# the ordinary release build. BENCH_DYNAMIC=1 measures the dynamically linked joule instead.
STATIC_JOULE = os.environ.get("BENCH_STATIC_JOULE", os.path.join(ROOT, ".build-release", "release", "joule"))
DYNAMIC_JOULE = os.path.join(BIN, "joule")
JOULE = DYNAMIC_JOULE if os.environ.get("BENCH_DYNAMIC") == "1" else STATIC_JOULE
JOULE_BENCH = os.path.join(BIN, "joule-bench")
JOULE_REL = os.path.relpath(JOULE, ROOT)
FIXTURE = "hw-fixtures/lenovo-ideapad-unknown-status-on-ac"
WATCH_SECONDS = int(os.environ.get("BENCH_WATCH_SECONDS", "60"))
ADVERTS = int(os.environ.get("BENCH_ADVERTS", "500000"))
SLEEPERS = int(os.environ.get("BENCH_SLEEPERS", "300"))
ENERGY_PROCESSES = int(os.environ.get("BENCH_ENERGY_PROCESSES", "1000"))
TRANSFER_MIB = int(os.environ.get("BENCH_TRANSFER_MIB", "256"))
TRANSFER_RUNS = int(os.environ.get("BENCH_TRANSFER_RUNS", "5"))
HTTPRANGE_SYNC = "1 MiB or 1 s, whichever comes first"
OUT = os.environ.get("BENCH_OUT", "BENCHMARKS.md")
PRELOAD = "libumockdev-preload.so.0"
# Debian's interpreter, where python3-psutil is installed (a pyenv python3 may be first on PATH).
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

rows = []   # (benchmark, joule, peer, peer value, ratio, target, verdict, command)
notes = []


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def median(xs):
    return statistics.median(xs)


def timed(cmd, env=None, stdout=subprocess.DEVNULL, runs=10):
    """Median wall time in seconds of a whole process, run `runs` times after one warm-up."""
    full = dict(os.environ, **(env or {}))
    subprocess.run(cmd, env=full, stdout=stdout, stderr=subprocess.DEVNULL, check=True)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, env=full, stdout=stdout, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t)
    return median(times)


def timed_rss(cmd, runs=20):
    """Median wall seconds and median peak RSS (MiB) of `cmd`. The peak comes from GNU time's
    own child: a child forked from this interpreter inherits its high-water mark across exec
    (Linux keeps the old mm's peak in the process's rusage), so wait4 here would report
    Python's ~15-20 MiB for any smaller program. None when /usr/bin/time is missing."""
    times, peaks = [], []
    for _ in range(runs):
        start = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, _ = os.wait4(child.pid, 0)
        times.append(time.perf_counter() - start)
        if status != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited with {status}")
    if os.access("/usr/bin/time", os.X_OK):
        with tempfile.NamedTemporaryFile("r") as out:
            for _ in range(runs):
                subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out.name] + cmd,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                out.seek(0)
                peaks.append(int(out.read().split()[-1]) / 1024)
    return median(times), (median(peaks) if peaks else None)


def callgrind_instructions(cmd):
    """Instructions executed (callgrind's Ir total) by `cmd`: unlike times, stable on a noisy
    machine and comparable across machines of one architecture. None without valgrind."""
    if not shutil.which("valgrind"):
        return None
    with tempfile.TemporaryDirectory(prefix="callgrind-") as tmp:
        # Debian 12's valgrind (3.19) gives up on the DWARF 5 that Swift 6 emits: it runs a copy
        # without the debug sections (symbols kept, so the profile still names functions).
        binary = os.path.join(tmp, os.path.basename(cmd[0]))
        subprocess.run(["strip", "--strip-debug", "-o", binary, cmd[0]], check=True)
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary] + cmd[1:],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        for line in open(out):
            if line.startswith(("totals:", "summary:")):
                return int(line.split()[1])
    return None


def sh(cmd):
    return " ".join(c if c and all(ch.isalnum() or ch in "-_./=:,[]'" for ch in c) else "'" + c.replace("'", "'\\''") + "'"
                    for c in cmd)


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"nproc": os.cpu_count(), "cpu": model, "kernel": platform.release(),
            "load": open("/proc/loadavg").read().split()[:3]}


def build():
    log("make release (joule, --static-swift-stdlib), swift build -c release (joule-bench)")
    if JOULE == STATIC_JOULE:
        subprocess.run(["scripts/install.sh", "build"], check=True)
    else:
        subprocess.run(["swift", "build", "-c", "release", "--product", "joule"], check=True)
    subprocess.run(["swift", "build", "-c", "release", "--product", "joule-bench"], check=True)


# ---------------------------------------------------------------- per-process CPU sampling

PSUTIL_SAMPLE = r"""
import psutil, statistics, sys, time
rounds = int(sys.argv[1])
list(psutil.process_iter(['cpu_times']))  # warm-up: psutil caches Process objects
per = []
for _ in range(rounds):
    t = time.perf_counter()
    n = sum(1 for p in psutil.process_iter(['cpu_times']) if p.info['cpu_times'] is not None)
    per.append((time.perf_counter() - t) / n)
print(statistics.median(per) * 1e9, n)
"""


def bench_sampling():
    log(f"sampling: starting {SLEEPERS} sleepers")
    sleepers = [subprocess.Popen(["sleep", "600"]) for _ in range(SLEEPERS)]
    try:
        time.sleep(0.5)
        out = subprocess.run([JOULE_BENCH, "sample", "--rounds", "50"], check=True, capture_output=True, text=True).stdout
        j = json.loads(out)
        ns = j["nsPerProcess"]
        procs = j["processes"]
        ps_out = subprocess.run([PY, "-c", PSUTIL_SAMPLE, "20"], check=True, capture_output=True, text=True).stdout.split()
        psutil_ns = float(ps_out[0])
        ps_cmd = ["ps", "-e", "-o", "pid,cputimes,comm"]
        nlines = len(subprocess.run(ps_cmd, capture_output=True, text=True).stdout.splitlines()) - 1
        ps_ns = timed(ps_cmd, runs=20) / max(1, nlines) * 1e9
        target = 1500  # issue 16: ≤ 1.5 µs per process and ≥ 20× psutil
        cmd = f"{sh([JOULE_BENCH.replace(ROOT + '/', ''), 'sample', '--rounds', '50'])}  (with {SLEEPERS} `sleep 600` running)"
        rows.append(("Per-process CPU sampling, cost per process per sample (all %d processes)" % procs,
                     f"{ns/1000:.2f} µs", "psutil.process_iter(['cpu_times'])", f"{psutil_ns/1000:.2f} µs",
                     psutil_ns / ns, "≤ 1.5 µs and ≥ 20× psutil",
                     "met" if ns <= target and psutil_ns / ns >= 20 else "missed", cmd))
        rows.append(("〃", "", "`" + " ".join(ps_cmd) + "` (whole process, ÷ processes)", f"{ps_ns/1000:.2f} µs",
                     ps_ns / ns, "", "", "python3 scripts/bench.py (ps row)"))
        # Instructions per process per sample: 11 samples minus 1, so start-up and the cold
        # first sample (opening every descriptor) cancel out.
        few = callgrind_instructions([JOULE_BENCH, "sample", "--rounds", "1"])
        many = callgrind_instructions([JOULE_BENCH, "sample", "--rounds", "11"])
        if few is not None and many is not None:
            per = (many - few) / (10 * procs)
            rows.append(("〃 instructions per process per sample (callgrind, warm samples)", f"{per:,.0f} Ir", "", "", None,
                         "reference for later changes", "",
                         f"valgrind --tool=callgrind {JOULE_BENCH.replace(ROOT + '/', '')} sample --rounds 11 (minus --rounds 1, ÷ 10 × processes)"))
        else:
            notes.append("valgrind is not installed: no callgrind rows.")
        notes.append(f"Sampling: joule-bench keeps /proc/PID/stat, schedstat and task descriptors open "
                     f"({j['openDescriptors']} open) and preads them; the first (cold) sample, which opens them, cost "
                     f"{j['coldNsPerProcess']/1000:.2f} µs per process. psutil is timed in-process after a warm-up "
                     f"pass (it caches Process objects too). `ps` is timed as a whole process (fork, exec, "
                     f"reading every /proc/PID/stat and status, printing), divided by its {nlines} lines. "
                     f"`ps -o pid,utime,stime,comm` as the issue names it prints '-' for utime and the start time for "
                     f"stime in procps-ng, so the row uses `cputimes`, which reads the same fields.")
    finally:
        for p in sleepers:
            p.kill()
        for p in sleepers:
            p.wait()


# ---------------------------------------------------------------- joule top's energy attribution

# The same attribution as ProcessEnergyAccounting.record, over psutil's readings: deltas by
# (pid, create time), Kepler's split of the host's energy by the node's busy share, shares by
# CPU time over max(node busy, sum of processes), energy since start per process and per unit,
# one row per process. Labels (name, unit) are read once per process, outside the timing, as
# joule does. psutil's num_ctx_switches is the leader thread's (/proc/PID/status); joule sums
# every thread's, which only makes joule's read slower.
PSUTIL_ENERGY = r"""
import psutil, statistics, sys, time
rounds = int(sys.argv[1])
HOST_WATTS = 15.0
ATTRS = ['pid', 'name', 'create_time', 'cpu_times', 'num_ctx_switches']

def unit_of(pid):
    try:
        with open(f'/proc/{pid}/cgroup') as f:
            for line in f:
                if line.startswith('0::'):
                    return line[3:].strip().rsplit('/', 1)[-1] or '-.slice'
    except OSError:
        return None
    return None

labels = {}
def collect():
    procs = []
    for p in psutil.process_iter(ATTRS):
        i = p.info
        if i['cpu_times'] is None or i['create_time'] is None:
            continue
        key = (i['pid'], i['create_time'])
        if key not in labels:
            labels[key] = (i['name'], unit_of(i['pid']))
        t = i['cpu_times']
        switches = i['num_ctx_switches'].voluntary if i['num_ctx_switches'] is not None else None
        procs.append((key, t.user + t.system, switches))
    c = psutil.cpu_times()
    total = sum(c)  - c.guest - c.guest_nice
    busy = total - c.idle - c.iowait
    return procs, busy, total

state = {'last': None, 'tracked': {}, 'units': {}}
def attribute(procs, busy, total, now):
    last = state['last']
    state['last'] = (now, busy, total)
    if last is None:
        state['tracked'] = {k: (cpu, sw, None) for k, cpu, sw in procs}
        return []
    interval = now - last[0]
    dbusy = max(0.0, busy - last[1])
    dtotal = max(0.0, total - last[2])
    active = HOST_WATTS * interval * dbusy / dtotal if dtotal > 0 else None
    tracked = state['tracked']
    deltas = []
    cpu_sum = 0.0
    for k, cpu, sw in procs:
        prev = tracked.get(k)
        d = max(0.0, cpu - prev[0]) if prev else cpu
        if sw is None:
            ds = None
        elif prev is None:
            ds = sw
        else:
            ds = None if prev[1] is None else max(0, sw - prev[1])
        deltas.append((d, ds))
        cpu_sum += d
    divisor = max(dbusy, cpu_sum)
    nxt = {}
    rows = []
    units = state['units']
    for (k, cpu, sw), (d, ds) in zip(procs, deltas):
        prev = tracked.get(k)
        joules = prev[2] if prev else None
        watts = None
        if active is not None:
            part = active * d / divisor if divisor > 0 else 0.0
            joules = (joules or 0.0) + part
            watts = part / interval
            name, unit = labels[k]
            if unit is not None:
                units[unit] = units.get(unit, 0.0) + part
        cpu_pct = d / interval * 100
        wakeups = None if ds is None else ds / interval
        score = None if wakeups is None else cpu_pct + 0.02 * wakeups
        rows.append((k[0], labels[k][0], labels[k][1], cpu_pct, wakeups, watts, joules, score))
        nxt[k] = (cpu, sw, joules)
    state['tracked'] = nxt
    return rows

procs, busy, total = collect()
attribute(procs, busy, total, time.monotonic())
per_attr, per_sample, counts = [], [], []
for _ in range(rounds):
    t0 = time.perf_counter()
    procs, busy, total = collect()
    t1 = time.perf_counter()
    rows = attribute(procs, busy, total, time.monotonic())
    t2 = time.perf_counter()
    per_attr.append(t2 - t1)
    per_sample.append(t2 - t0)
    counts.append(len(rows))
print(statistics.median(per_attr) * 1e9, statistics.median(per_sample) * 1e9, int(statistics.median(counts)))
"""


def bench_energy():
    log(f"energy: starting {ENERGY_PROCESSES} sleepers")
    sleepers = [subprocess.Popen(["sleep", "600"]) for _ in range(ENERGY_PROCESSES)]
    try:
        time.sleep(0.5)
        rounds = 40
        out = subprocess.run([JOULE_BENCH, "energy", "--rounds", str(rounds)], check=True, capture_output=True, text=True).stdout
        j = json.loads(out)
        attr_ns, sample_ns, procs = j["attributeNsPerSample"], j["sampleNsPerSample"], j["processes"]
        ps = subprocess.run([PY, "-c", PSUTIL_ENERGY, "20"], check=True, capture_output=True, text=True).stdout.split()
        py_attr_ns, py_sample_ns, py_procs = float(ps[0]), float(ps[1]), int(ps[2])
        cmd = f"{sh([JOULE_BENCH.replace(ROOT + '/', ''), 'energy', '--rounds', str(rounds)])}  (with {ENERGY_PROCESSES} `sleep 600` running)"
        rows.append((f"`joule top` attribution per sample, {procs} processes (ProcessEnergyAccounting.record)",
                     f"{attr_ns/1e6:.3f} ms", f"psutil peer, same attribution in Python ({py_procs} processes)",
                     f"{py_attr_ns/1e6:.3f} ms", py_attr_ns / attr_ns, "≤ 1 ms per sample for 1000 processes",
                     "met" if attr_ns <= 1e6 and procs >= 1000 else "missed", cmd))
        rows.append(("〃 whole sample: power source, /proc/stat, every process's CPU and voluntary switches, attribution "
                     "(ProcessEnergyMeter.sample)", f"{sample_ns/1e6:.2f} ms",
                     "psutil peer: process_iter(cpu_times, num_ctx_switches) + cpu_times() + the same attribution",
                     f"{py_sample_ns/1e6:.2f} ms", py_sample_ns / sample_ns, "", "", "python3 scripts/bench.py (energy peer row)"))
        notes.append(f"Energy: joule-bench times `ProcessEnergyAccounting.record` alone on readings taken live between the "
                     f"timed calls ({rounds} rounds), with a host figure of 15 W supplied so every share is computed (the "
                     f"machine may have no RAPL); the peer (`PSUTIL_ENERGY` in scripts/bench.py) does the same arithmetic "
                     f"over psutil's readings with the same 15 W, timed in-process after a baseline. The whole-sample row "
                     f"includes reading the power source and /proc; joule reads voluntary switches of every thread "
                     f"(/proc/PID/task/TID/status for multi-threaded processes), psutil only the leader's /proc/PID/status.")
    finally:
        stop_processes(sleepers)


# ---------------------------------------------------------------- joule status under umockdev

PSUTIL_STATUS = r"""
import json, psutil
b = psutil.sensors_battery()
t = psutil.sensors_temperatures()
print(json.dumps({"battery": None if b is None else [b.percent, b.secsleft, b.power_plugged],
                  "temperatures": {k: [s.current for s in v] for k, v in t.items()},
                  "cpus": psutil.cpu_count()}))
"""


def bench_status(work):
    log("status under umockdev, beside psutil, upower -d and sensors -j")
    env = {"UMOCKDEV_DIR": os.path.join(ROOT, FIXTURE), "LD_PRELOAD": PRELOAD,
           # Its own runtime directory: the CPU memo status leaves between runs (issue 16).
           "JOULE_RUNTIME_DIR": os.path.join(work, "status-runtime")}
    joule_cmd = [JOULE, "status", "--json"]
    root_cmd = [JOULE, "status", "--json", "--root", FIXTURE]
    py_cmd = [PY, "-c", PSUTIL_STATUS]
    sensors_cmd = ["sensors", "-j"]
    check = subprocess.run(py_cmd, env=dict(os.environ, **env), capture_output=True, text=True, check=True).stdout
    notes.append(f"psutil under umockdev read: `{check.strip()}` (the same battery and zones joule reports).")
    version_s, version_mib = timed_rss([JOULE, "--version"], runs=20)
    rss_text = f"{version_mib:.1f} MiB" if version_mib is not None else "unknown (no /usr/bin/time)"
    rows.append(("`joule --version`, cold process (start-up alone)", f"{version_s*1000:.1f} ms, {rss_text} peak RSS",
                 "", "", None, "≤ 3 ms, ≤ 8 MiB",
                 "met" if version_s <= 0.003 and version_mib is not None and version_mib <= 8 else "missed",
                 f"{JOULE_REL} --version  (peak RSS: /usr/bin/time -f %M)"))
    j = timed(joule_cmd, env=env, runs=20)
    jr = timed(root_cmd, env=env, runs=20)
    p = timed(py_cmd, env=env, runs=20)
    envtext = f"UMOCKDEV_DIR={FIXTURE} LD_PRELOAD={PRELOAD}"
    target = "≤ 5 ms and ≥ 10× psutil"
    verdict = lambda ms, ratio: "met" if ms <= 5 and ratio >= 10 else "missed"
    rows.append(("`joule status --json`, whole process, under umockdev (libudev path)", f"{j*1000:.1f} ms",
                 "psutil script (sensors_battery, sensors_temperatures, cpu_count)", f"{p*1000:.1f} ms", p / j,
                 target, verdict(j * 1000, p / j),
                 f"{envtext} {JOULE_REL} status --json"))
    rows.append(("`joule status --json --root FIXTURE`, whole process (sysfs reader, same files)", f"{jr*1000:.1f} ms",
                 "same psutil script", f"{p*1000:.1f} ms", p / jr, target, verdict(jr * 1000, p / jr),
                 f"{envtext} {JOULE_REL} status --json --root {FIXTURE}"))
    if shutil.which("sensors"):
        out = subprocess.run(sensors_cmd, env=dict(os.environ, **env), capture_output=True, text=True)
        if out.returncode == 0:
            s_ = timed(sensors_cmd, env=env, runs=20)
            rows.append(("〃 beside lm-sensors on the same hwmon fixture", "", "`sensors -j` (lm-sensors, umockdev)",
                         f"{s_*1000:.1f} ms", s_ / j, "ahead", "met" if s_ > j else "missed", f"{envtext} sensors -j"))
            notes.append(f"sensors -j under umockdev read {len(json.loads(out.stdout or '{}'))} chips "
                         f"({', '.join(sorted(json.loads(out.stdout or '{}')))}), the hwmon devices joule reports.")
        else:
            notes.append(f"sensors -j failed under umockdev ({out.stderr.strip()[:200]}): no lm-sensors row.")
    else:
        notes.append("lm-sensors is not installed: no `sensors -j` row.")
    # upower -d asks upowerd, which reads the same fixture under umockdev on a private system bus.
    bus = PrivateBus(os.path.join(work, "bus-status-upower"))
    upowerd = logind = None
    try:
        upowerd, logind, version = start_upowerd(work, bus, fixture=FIXTURE, name="status-upower")
        upower_env = {"DBUS_SYSTEM_BUS_ADDRESS": bus.address}
        u = timed(["upower", "-d"], env=upower_env, runs=20)
        rows.append(("〃 beside UPower on the same fixture", "", f"`upower -d` (client of upowerd {version}, private bus)",
                     f"{u*1000:.1f} ms", u / j, "ahead", "met" if u > j else "missed",
                     f"DBUS_SYSTEM_BUS_ADDRESS=(private bus, upowerd -r under {envtext}) upower -d"))
    except Exception as error:  # noqa: BLE001 - a missing peer is a note, not a failed run
        notes.append(f"upower -d row skipped: {error}")
    finally:
        stop_processes([p_ for p_ in (upowerd, logind) if p_])
        bus.stop()
    notes.append("Status: without --root and without a daemon, `joule status` reports CPU usage since the /proc/stat "
                 "sample the previous status left in its runtime directory when that is 0.1–60 s old, else over a "
                 "20 ms sample. Under umockdev /proc/stat is the fixture's, which never moves: the first of the 20+1 "
                 "runs took the short sample, counted no tick and left a memo saying the stat is still, so no later "
                 "run slept (these runs are < 0.1 s apart: before that memo, each of them took the 20 ms sample). "
                 "psutil's script reports no CPU usage at all. The psutil script includes the Python interpreter's "
                 "start, as joule's includes its own.")


# ---------------------------------------------------------------- beacon decoding throughput

TSHARK_FIELDS = ["frame.time_epoch", "bthci_evt.bd_addr", "bthci_evt.rssi", "bluetooth.apple.ibeacon.uuid128",
                 "bluetooth.apple.ibeacon.major", "bluetooth.apple.ibeacon.minor",
                 "btcommon.eir_ad.entry.company_id", "btcommon.eir_ad.entry.service_data",
                 "btcommon.eir_ad.entry.data"]


def bench_beacons(work):
    log(f"beacons: generating {ADVERTS} adverts")
    capture = os.path.join(work, "large.btsnoop")
    subprocess.run([sys.executable, "scripts/gen-btsnoop-fixtures.py", "--large", capture, str(ADVERTS)], check=True)
    size = os.path.getsize(capture)
    # Agreement first: joule and the Python decoder print the same adverts.
    jl = subprocess.run([JOULE, "beacons", "scan", "--json", "--replay", capture], capture_output=True, text=True, check=True).stdout.splitlines()
    pl = subprocess.run([PY, "scripts/beacon_decode.py", capture], capture_output=True, text=True, check=True).stdout.splitlines()
    agree = len(jl) == len(pl) and all(json.loads(a) == json.loads(b) for a, b in zip(jl[:2000], pl[:2000]))
    n = len(jl)
    log(f"beacons: {n} adverts, {size/1e6:.1f} MB; python agrees: {agree}")
    jcmd = [JOULE, "beacons", "scan", "--json", "--replay", capture]
    j = timed(jcmd, runs=5)
    inproc = json.loads(subprocess.run([JOULE_BENCH, "decode", capture, "--rounds", "5"], capture_output=True, text=True, check=True).stdout)
    pycmd = [PY, "scripts/beacon_decode.py", capture]
    p = timed(pycmd, runs=2)
    rate = n / j
    rows.append((f"Beacon decoding, `joule beacons scan --json --replay` whole process ({n} adverts, {size/1e6:.0f} MB)",
                 f"{rate/1e6:.2f} M adverts/s", "scripts/beacon_decode.py (Python)", f"{n/p/1e6:.3f} M adverts/s",
                 p / j, "≥ 4 M adverts/s and ≥ 60× Python",
                 "met" if rate >= 4e6 and p / j >= 60 else "missed",
                 f"python3 scripts/gen-btsnoop-fixtures.py --large /tmp/large.btsnoop {ADVERTS} && {JOULE_REL} beacons scan --json --replay /tmp/large.btsnoop > /dev/null"))
    if shutil.which("tshark"):
        tcmd = ["tshark", "-r", capture, "-T", "fields"] + sum((["-e", f] for f in TSHARK_FIELDS), [])
        t = timed(tcmd, runs=1)
        rows.append(("〃", "", "tshark -T fields (same file)", f"{n/t/1e6:.3f} M adverts/s", t / j, "≥ 80× tshark",
                     "met" if t / j >= 80 else "missed",
                     "tshark -r /tmp/large.btsnoop -T fields " + " ".join("-e " + f for f in TSHARK_FIELDS) + " > /dev/null"))
    else:
        notes.append("tshark was not installed, so its row is missing.")
    rows.append(("Beacon decoding in-process (joule-bench: reader → decoder → NDJSON → /dev/null)",
                 f"{inproc['advertsPerSecond']/1e6:.2f} M adverts/s", "", "", None, "≥ 4 M adverts/s",
                 "met" if inproc["advertsPerSecond"] >= 4e6 else "missed",
                 ".build/release/joule-bench decode /tmp/large.btsnoop --rounds 5"))
    # Instructions per advert on a smaller capture (callgrind runs ~50× slower): 3 rounds minus 1.
    small = os.path.join(work, "small.btsnoop")
    subprocess.run([sys.executable, "scripts/gen-btsnoop-fixtures.py", "--large", small, "20000"], check=True)
    small_adverts = json.loads(subprocess.run([JOULE_BENCH, "decode", small, "--rounds", "1"], capture_output=True,
                                              text=True, check=True).stdout)["adverts"]
    few = callgrind_instructions([JOULE_BENCH, "decode", small, "--rounds", "1"])
    many = callgrind_instructions([JOULE_BENCH, "decode", small, "--rounds", "3"])
    if few is not None and many is not None:
        rows.append(("〃 instructions per advert (callgrind: reader → decoder → NDJSON)",
                     f"{(many - few) / (2 * small_adverts):,.0f} Ir", "", "", None, "reference for later changes", "",
                     "python3 scripts/gen-btsnoop-fixtures.py --large /tmp/small.btsnoop 20000 && valgrind --tool=callgrind "
                     ".build/release/joule-bench decode /tmp/small.btsnoop --rounds 3 (minus --rounds 1, ÷ 2 × adverts)"))
    notes.append(f"Beacons: the capture has three legacy reports per event (two beacons and one non-beacon); joule's and "
                 f"the Python decoder's adverts {'agree' if agree else 'DO NOT agree'} (count and first 2000 values). "
                 f"tshark decodes every field of every packet (it is a general dissector), so it is the slow peer by nature. "
                 f"The whole-process row includes process start and writing every ~200-byte NDJSON line to /dev/null.")


# ---------------------------------------------------------------- location: region monitoring

EARTH_RADIUS_M = 6371008.8
LOCATION_ORIGIN = (48.85837, 2.294481)
LOCATION_T0 = 1714564800  # 2024-05-01T12:00:00Z


def location_point(north, east):
    """Geodesy.offset's flat step from the origin, in degrees."""
    import math
    lat0, lon0 = LOCATION_ORIGIN
    lat = lat0 + north / EARTH_RADIUS_M * 180 / math.pi
    lon = lon0 + east / (EARTH_RADIUS_M * math.cos(math.radians(lat0))) * 180 / math.pi
    return lat, lon


def location_replay(path, route, hz=1):
    """Writes `gpspipe -w` lines for `route(t) -> (north, east, eph)` over 2 hours at `hz` fixes
    a second, with a SKY line after each TPV as gpsd sends them; returns the fix count."""
    count = 0
    with open(path, "w") as f:
        f.write('{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}\n')
        for i in range(7200 * hz):
            t = i / hz
            north, east, eph = route(t)
            lat, lon = location_point(north, east)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(LOCATION_T0 + i // hz))
            stamp += f".{(i % hz) * 1_000_000 // hz:06d}Z" if hz > 1 else "Z"
            f.write(f'{{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"{stamp}","lat":{lat:.9f},"lon":{lon:.9f},'
                    f'"altHAE":40.5,"epv":9.0,"eph":{eph},"speed":0.0}}\n')
            f.write('{"class":"SKY","device":"/dev/ttyACM0","satellites":[]}\n')
            count += 1
    return count


def location_commute(t):
    """Home 30 min (±3 m), 20 min by bicycle east at 6 m/s, office 50 min, 20 min back."""
    jitter = 3 if int(t) % 2 else -3
    if t < 1800:
        return jitter, 0, 5
    if t < 3000:
        return 0, (t - 1800) * 6, 5
    if t < 6000:
        return jitter, 7200, 5
    return 0, 7200 - (t - 6000) * 6, 5


def location_day_out(t):
    """10 min at home, a 20-min ride north-east, then 90 min walking in a park 4 km from both
    regions (1.4 m/s round a 300 m square)."""
    if t < 600:
        return (3 if int(t) % 2 else -3), 0, 5
    if t < 1800:
        d = (t - 600) * 4
        return d * 0.8, d * 0.6, 5
    lap = ((t - 1800) * 1.4) % 1200
    side, along = int(lap // 300), lap % 300
    corner = [(0, 0), (300, 0), (300, 300), (0, 300)]
    step = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    return 3840 + corner[side][0] + step[side][0] * along, 2880 + corner[side][1] + step[side][1] * along, 8


def location_cpu(cmd):
    """utime + stime of one whole process (wait4's rusage), seconds."""
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {status}")
    return usage.ru_utime + usage.ru_stime


def bench_location(work):
    log("location: region monitoring vs an always-on watch over generated 2-hour replays")
    home = "home={:.7f},{:.7f},150".format(*location_point(0, 0))
    office = "office={:.7f},{:.7f},150".format(*location_point(0, 7200))
    regions = ["--region", home, "--region", office]
    for name, route, what in (("commute", location_commute, "a commute: 30 min home, 20 min cycling, 50 min office, 20 min back"),
                              ("day-out", location_day_out, "a day out: 10 min home, 20 min cycling, 90 min walking 4 km from both regions")):
        replay = os.path.join(work, f"location-{name}.ndjson")
        fixes = location_replay(replay, route)
        summaries = {}
        for command, extra in (("monitor", regions), ("watch", [])):
            out = subprocess.run([JOULE, "location", command, "--json", "--ttff", "3", "--replay", replay] + extra,
                                 capture_output=True, text=True, check=True).stdout.splitlines()
            summaries[command] = json.loads(out[-1])
            if command == "monitor":
                crossings = [f"{e['event']} {e['region']}" for e in map(json.loads, out) if e["event"] in ("regionEnter", "regionExit")]
        mon, watch = summaries["monitor"], summaries["watch"]
        ratio = watch["receiverOnS"] / mon["receiverOnS"] if mon["receiverOnS"] > 0 else None
        rows.append((f"Region monitoring, receiver on-time over a generated 2-hour replay ({what}; 2 regions of 150 m, "
                     f"max-speed 30 m/s, TTFF 3 s)",
                     f"{mon['receiverOnS']:.0f} s of {mon['spanS']:.0f} s ({100 * mon['receiverOnS'] / mon['spanS']:.1f} %), "
                     f"{mon['fixes']} of {fixes} fixes",
                     "`joule location watch` (always on), same replay", f"{watch['receiverOnS']:.0f} s", ratio,
                     "less than watch", "met" if ratio and ratio > 1 else "missed",
                     f"{JOULE_REL} location monitor --json --ttff 3 --replay /tmp/location-{name}.ndjson {' '.join(regions)}"))
        notes.append(f"Location ({name}): monitor reported {', '.join(crossings) or 'no crossing'}; on-time is virtual "
                     f"(the replay's own clock), so it does not depend on the machine.")
    # CPU: the same commute at 10 fixes a second (72,000 fixes), less a one-fix replay's whole process.
    dense = os.path.join(work, "location-dense.ndjson")
    fixes = location_replay(dense, location_commute, hz=10)
    one = os.path.join(work, "location-one.ndjson")
    with open(dense) as f, open(one, "w") as g:
        g.writelines([next(f), next(f)])
    for command, extra in (("monitor", regions), ("watch", [])):
        base = [JOULE, "location", command, "--json", "--ttff", "3"] + extra
        full = median([location_cpu(base + ["--replay", dense]) for _ in range(7)])
        start = median([location_cpu(base + ["--replay", one]) for _ in range(7)])
        per = (full - start) / fixes * 1000
        rows.append((f"〃 CPU per 1,000 fixes, `location {command}` (whole process, utime+stime, the 2-hour commute at 10 Hz: "
                     f"{fixes:,} fixes, less a one-fix replay's {start*1000:.1f} ms)",
                     f"{per*1000:.2f} ms", "", "", None, "reference for later changes", "",
                     f"{JOULE_REL} location {command} --json --ttff 3 --replay /tmp/location-dense.ndjson "
                     + (" ".join(regions) if extra else "") + " > /dev/null"))
    notes.append("Location CPU: every record of the replay is read, decoded and checked whether the receiver is on or off "
                 "(a replay is validated whole before the session), so monitor's cost per fix is mostly decoding; "
                 "watch also prints every fix as a JSON line.")


# ---------------------------------------------------------------- beacon monitoring wakeups (VM)

# Tests/VM/bench/beacon-wakeups.sh's runs: (name, what the row calls it).
BEACON_MECHANISMS = (("offloaded", "offloaded (MSFT controller filtering)"),
                     ("manager", "bluez-software through AdvertisementMonitorManager1 (bluetoothd matches)"),
                     ("discovery", "bluez-software through filtered discovery (joule matches)"),
                     ("hci-duty-cycle", "hci-duty-cycle (joule's own scan)"))
BEACON_CONDITIONS = {"none": "no matching beacon in range", "inout": "one beacon going in and out"}


def bench_beacon_wakeups(work):
    """Runs Tests/VM/bench/beacon-wakeups.sh in the VM (scripts/vm/run.sh) and turns its pass
    detail (`msft=yes|no MECH.COND=HOST/JOULE/EVENTS/ENTERS ...`, per minute) into rows."""
    log("beacon-wakeups: booting the test VM (about 5 minutes)")
    env = dict(os.environ, VM_SCENARIOS="beacon-wakeups", VM_JOULE=JOULE, VM_TIMEOUT="900")
    run = subprocess.run(["scripts/vm/run.sh"], env=env, capture_output=True, text=True)
    line = next((l for l in run.stdout.splitlines() if l.startswith("VM-SCENARIO beacon-wakeups ")), None)
    if "vm: SKIPPED" in run.stdout:
        notes.append("Beacon monitoring wakeups: the VM did not run here (" + run.stdout.strip().splitlines()[-1] + ").")
        return
    if line is None or " PASS " not in line:
        tail = " ".join(run.stderr.strip().splitlines()[-5:])
        notes.append(f"Beacon monitoring wakeups: the VM scenario did not pass: {line or tail}")
        return
    fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
    figures = {}
    for key, value in fields.items():
        if "." in key:
            host, joule, events, enters = value.split("/")
            figures[key] = (float(host), float(joule), float(events), int(enters))
    cmd = "VM_SCENARIOS=beacon-wakeups VM_JOULE=.build-release/release/joule ./scripts/vm/run.sh"
    for cond, what in BEACON_CONDITIONS.items():
        hci = figures.get(f"hci-duty-cycle.{cond}")
        for mech, label in BEACON_MECHANISMS:
            f = figures.get(f"{mech}.{cond}")
            if f is None:
                continue
            # Context switches are summed over live threads: when joule's threads exit during the
            # window its own figure can come out negative, and is then unknown.
            own = f"joule {f[1]:.0f}" if f[1] >= 0 else "joule unknown: threads exited"
            value = f"{f[0]:.0f} wakeups/min ({own}, {f[2]:.0f} HCI events/min, {f[3]} enters)"
            if mech == "hci-duty-cycle":
                rows.append((f"Region monitoring in the VM, {what}: {label}", value, "", "", None, "", "", cmd))
                continue
            ratio = hci[0] / f[0] if hci and f[0] > 0 else None
            target = "fewer host wakeups than hci-duty-cycle" if mech == "offloaded" else ""
            verdict = ("met" if hci and f[0] < hci[0] else "missed") if mech == "offloaded" else ""
            rows.append((f"Region monitoring in the VM, {what}: {label}", value, "hci-duty-cycle",
                         f"{hci[0]:.0f} wakeups/min" if hci else "", ratio, target, verdict, cmd))
    msft = fields.get("msft") == "yes"
    notes.append("Beacon monitoring wakeups: measured in the test VM (qemu, Debian's kernel, Debian's bluetoothd, the "
                 "virtual controller replaying captures); host wakeups are the context switches of joule, bluetoothd "
                 "and dbus-daemon (joule's alone in parentheses), HCI events are what the controller sent the host. "
                 + ("The kernel has CONFIG_BT_MSFTEXT: the offloaded rows have the controller filtering (MSFT)."
                    if msft else
                    "The kernel lacks CONFIG_BT_MSFTEXT (Debian 12's does), so no controller can be given the "
                    "pattern: there are no offloaded rows; the monitor-manager rows are what such a kernel does "
                    "(it scans, bluetoothd matches, every advert still reaches the host)."))


# ---------------------------------------------------------------- transfer download throughput

def bench_transfers(work):
    """HTTPRangeDownloader against curl on the same local file from the same server, alternating."""
    size = TRANSFER_MIB << 20
    log(f"transfers: writing a {TRANSFER_MIB} MiB file")
    served = os.path.join(work, "served")
    os.makedirs(served)
    with open(os.path.join(served, "big.bin"), "wb") as f:
        for _ in range(TRANSFER_MIB):
            f.write(os.urandom(1 << 20))
        os.fsync(f.fileno())
    port_file = os.path.join(work, "file-server.port")
    server = subprocess.Popen([PY, "scripts/bench_file_server.py", served, port_file],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    mib = 1 << 20
    try:
        deadline = time.time() + 30
        while not os.path.exists(port_file):
            if time.time() > deadline or server.poll() is not None:
                sys.exit("transfers: bench_file_server.py did not start")
            time.sleep(0.05)
        url = f"http://127.0.0.1:{open(port_file).read().strip()}/big.bin"
        # Served from the page cache, like every run that follows.
        subprocess.run(["curl", "-s", "-f", "-o", "/dev/null", url], check=True)

        def compare(dest):
            """Median seconds of curl, joule-bench and curl followed by fsync, rotating the order."""
            cmds = {"curl": ["curl", "-s", "-f", "-o", dest, url],
                    "joule": [JOULE_BENCH, "download", url, dest],
                    "curl+sync": ["sh", "-c", f"curl -s -f -o {dest} {url} && sync {dest}"]}
            times = {name: [] for name in cmds}
            inproc, commits = [], 0
            names = list(cmds)
            for i in range(TRANSFER_RUNS):
                for name in names[i % 3:] + names[:i % 3]:
                    if os.path.exists(dest):
                        os.unlink(dest)
                    # No run inherits the previous one's writeback (curl leaves the file dirty).
                    os.sync()
                    t = time.perf_counter()
                    out = subprocess.run(cmds[name], check=True, capture_output=True, text=True).stdout
                    times[name].append(time.perf_counter() - t)
                    if name == "joule":
                        inproc.append(json.loads(out)["seconds"])
                        commits = json.loads(out)["commits"]
                    if os.path.getsize(dest) != size:
                        sys.exit(f"transfers: {dest} has {os.path.getsize(dest)} bytes after {name}, expected {size}")
            os.unlink(dest)
            return times, inproc, commits

        disk, inproc, commits = compare(os.path.join(work, "downloaded.bin"))
        shm = None
        if os.path.isdir("/dev/shm"):
            shm_dir = tempfile.mkdtemp(prefix="joule-bench-", dir="/dev/shm")
            try:
                shm = compare(os.path.join(shm_dir, "downloaded.bin"))[0]
            finally:
                shutil.rmtree(shm_dir, ignore_errors=True)
    finally:
        server.kill()
        server.wait()

    def rate(xs):
        return size / median(xs)

    j, c, cs = rate(disk["joule"]), rate(disk["curl"]), rate(disk["curl+sync"])
    cmd = "python3 scripts/bench_file_server.py DIR PORTFILE & .build/release/joule-bench download URL FILE"
    rows.append((f"Download throughput, {TRANSFER_MIB} MiB from a local sendfile server to {filesystem(work)}, whole process "
                 f"(median of {TRANSFER_RUNS})", f"{j/mib:.0f} MiB/s", "`curl -s -o FILE URL`", f"{c/mib:.0f} MiB/s",
                 j / c, "≥ 0.9× curl", "met" if j / c >= 0.9 else "missed", cmd))
    rows.append(("〃 against a durable peer", "", "`curl -s -o FILE URL && sync FILE`", f"{cs/mib:.0f} MiB/s", j / cs, "", "",
                 "sh -c 'curl -s -o FILE URL && sync FILE'"))
    if shm:
        js, ccs = rate(shm["joule"]), rate(shm["curl"])
        rows.append(("〃 to tmpfs (/dev/shm: fsync costs nothing, so this is the HTTP and write path alone)",
                     f"{js/mib:.0f} MiB/s", "`curl -s -o FILE URL`", f"{ccs/mib:.0f} MiB/s", js / ccs, "", "", cmd))
    runs = "; ".join(f"{name} {', '.join(f'{x:.2f}' for x in xs)}" for name, xs in disk.items())
    notes.append(f"Transfers: joule-bench download runs HTTPRangeDownloader as the daemon does, with the default durable "
                 f"cadence (pwrite, then fsync and a commit every {HTTPRANGE_SYNC} — {commits} commits for this file), "
                 f"the length check and the durable rename; its commits are a counter here, where the daemon's are "
                 f"SQLite transactions. curl writes to the page cache and never fsyncs, so on a disk the durable "
                 f"download also pays for writing every byte to the device within the run: the `&& sync` peer pays "
                 f"the same. Every command is a whole process, in rotating order, each after a sync(2) so no run "
                 f"inherits the previous one's writeback, from scripts/bench_file_server.py (Python, sendfile(2): "
                 f"faster than either client, unlike `python3 -m http.server`). In-process, the download took "
                 f"{median(inproc)*1000:.0f} ms median. All runs on disk, seconds: {runs}." +
                 (f" On tmpfs: {'; '.join(f'{n} ' + ', '.join(f'{x:.2f}' for x in xs) for n, xs in shm.items())}." if shm else ""))


def filesystem(path):
    """The type of the filesystem holding `path`, from /proc/self/mounts (longest matching mount point)."""
    best, kind = "", "unknown"
    path = os.path.realpath(path)
    with open("/proc/self/mounts") as f:
        for line in f:
            _, point, fstype = line.split()[:3]
            if (path == point or path.startswith(point.rstrip("/") + "/")) and len(point) > len(best):
                best, kind = point, fstype
    return f"{kind} ({best})"


# ---------------------------------------------------------------- joule watch self-cost and latency

def task_ctxt(pid):
    """(voluntary switches summed over all threads, leader's own figure)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    leader = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("voluntary_ctxt_switches"):
                leader = int(line.split()[1])
    return total, leader


def task_run_ns(pid):
    """Run time in ns summed over the live threads (/proc/PID/task/*/schedstat, field 1)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def stop_processes(processes):
    """SIGTERM each one still running (None is skipped), then SIGKILL any not gone 10 s later."""
    for p in processes:
        if p and p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def status_field(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1])
    return None


def bench_watch_cost(work):
    log(f"watch self-cost: {WATCH_SECONDS} s")
    root = os.path.join(work, "watch-cost")
    shutil.copytree(FIXTURE, root, symlinks=True)
    cmd = [JOULE, "watch", "--root", root, "--interval", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        warm = min(5, WATCH_SECONDS // 6)
        time.sleep(warm)
        hz = os.sysconf("SC_CLK_TCK")
        t0, c0, n0, (v0, l0) = time.monotonic(), cpu_ticks(proc.pid), task_run_ns(proc.pid), task_ctxt(proc.pid)
        time.sleep(WATCH_SECONDS - warm)
        t1, c1, n1, (v1, l1) = time.monotonic(), cpu_ticks(proc.pid), task_run_ns(proc.pid), task_ctxt(proc.pid)
        threads = len(os.listdir(f"/proc/{proc.pid}/task"))
        hwm = status_field(proc.pid, "VmHWM")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    span = t1 - t0
    cpu_ticks_pct = (c1 - c0) / hz / span * 100
    cpu = (n1 - n0) / 1e9 / span * 100
    wake = (v1 - v0) / span
    leader = (l1 - l0) / span
    cmdtext = f"cp -a {FIXTURE} /tmp/w && {JOULE_REL} watch --root /tmp/w --interval 1  (steady window {span:.0f} s after {warm} s)"
    # Issue 16's targets (the earlier issue's were < 0.1 %, ≤ 16 MiB and ≤ 1.5 /s).
    rows.append(("`joule watch` self-cost at 1 Hz: CPU", f"{cpu:.3f} % of a core", "", "", None, "< 0.05 %",
                 "met" if cpu < 0.05 else "missed", cmdtext))
    rows.append(("〃 peak RSS (VmHWM)", f"{hwm/1024:.1f} MiB", "", "", None, "≤ 10 MiB",
                 "met" if hwm <= 10 * 1024 else "missed", "〃"))
    rows.append((f"〃 wakeups/s, voluntary switches of all {threads} threads", f"{wake:.2f} /s", "", "", None, "≤ 1.0 /s",
                 "met" if wake <= 1.0 else "missed", "〃"))
    rows.append(("〃 wakeups/s, leader thread only (/proc/PID/status)", f"{leader:.2f} /s", "", "", None, "(not the honest figure)",
                 "", "〃"))
    notes.append(f"Watch: CPU is the threads' run time from /proc/PID/task/*/schedstat (ns) over the steady window; "
                 f"utime+stime from /proc/PID/stat agree at USER_HZ={hz} resolution: {c1-c0} ticks in {span:.0f} s = "
                 f"{cpu_ticks_pct:.3f} % (one tick is {100/hz/span:.3f} %). Wakeups sum voluntary_ctxt_switches over every thread in "
                 f"/proc/PID/task/*/status: that is the honest figure, since Swift's concurrency runtime runs the poll loop "
                 f"on worker threads and the leader mostly sleeps; the leader-only figure is shown to make that visible.")


def bench_latency(work, changes=20):
    log(f"event latency: {changes} changes")
    root = os.path.join(work, "latency")
    shutil.copytree(FIXTURE, root, symlinks=True)
    temp = os.path.realpath(os.path.join(root, "sys/class/thermal/thermal_zone0"))
    path = os.path.join(temp, "temp")
    cmd = [JOULE, "watch", "--root", root, "--json", "--interval", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    latencies = []
    events = {}
    try:
        first = proc.stdout.readline()
        assert '"snapshot"' in first, first
        values = ["124000", "44000"]
        for i in range(changes):
            time.sleep(random.uniform(0.3, 1.3))
            tmp = path + ".new"
            with open(tmp, "w") as f:
                f.write(values[i % 2] + "\n")
            t = time.monotonic()
            os.replace(tmp, path)
            # Read until the thermal change arrives (other events may come with it).
            while True:
                line = proc.stdout.readline()
                if not line:
                    raise RuntimeError("joule watch ended")
                event = json.loads(line).get("event")
                events[event] = events.get(event, 0) + 1
                if event == "thermalStateDidChange":
                    latencies.append(time.monotonic() - t)
                    break
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    med, worst = median(latencies), max(latencies)
    rows.append((f"Event latency: fixture change → its `joule watch --json --interval 1` line (median of {len(latencies)})",
                 f"{med*1000:.0f} ms (max {worst*1000:.0f} ms)", "", "", None, "≤ 1 poll interval + 10 ms (1010 ms)",
                 "met" if worst <= 1.010 else "missed",
                 f"cp -a {FIXTURE} /tmp/l && {JOULE_REL} watch --root /tmp/l --json --interval 1, then rename a new thermal_zone0/temp (124000 ↔ 44000) into place"))
    notes.append(f"Latency: the zone's temperature alternates between 124 °C (above its 120 °C critical trip) and 44 °C at "
                 f"random 0.3–1.3 s gaps, so changes land at every phase of the 1 s poll; the median is about half an interval "
                 f"by construction, the max is what the target bounds. Events seen: {events}.")


# ---------------------------------------------------------------- joule daemon vs upowerd, idle

BUS_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""

# One client for both daemons: python3-dbus, blocking calls on one connection per bus, the
# targets interleaved in blocks so that noise from the shared machine lands on both alike.
DBUS_READS = r"""
import dbus, json, statistics, sys, time
spec = json.loads(sys.argv[1]); n = int(sys.argv[2]); rounds = 10
buses, calls = {}, {}
for t in spec:
    bus = buses.setdefault(t["address"], dbus.bus.BusConnection(t["address"]))
    if t["prop"] is None:   # the bus driver itself: the floor of client + dbus-daemon
        calls[t["label"]] = (lambda bus=bus: bus.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                             "org.freedesktop.DBus", "GetId", "", ()))
    else:
        calls[t["label"]] = (lambda bus=bus, t=t: bus.call_blocking(t["dest"], t["path"], "org.freedesktop.DBus.Properties",
                                                                    "Get", "ss", (t["iface"], t["prop"])))
values = {label: call() for label, call in calls.items()}
for call in calls.values():
    for _ in range(200):
        call()
times = {label: [] for label in calls}
for _ in range(rounds):
    for label, call in calls.items():
        for _ in range(n // rounds):
            t0 = time.perf_counter_ns(); call(); times[label].append(time.perf_counter_ns() - t0)
out = {}
for label, ts in times.items():
    ts.sort()
    out[label] = {"median_us": statistics.median(ts) / 1000, "p99_us": ts[int(len(ts) * 0.99) - 1] / 1000,
                  "n": len(ts), "value": str(values[label])}
print(json.dumps(out))
"""

DAEMON_SECONDS = int(os.environ.get("BENCH_DAEMON_SECONDS", "60"))
DAEMON_READS = int(os.environ.get("BENCH_DAEMON_READS", "2000"))
DAEMON_FIXTURE = "hw-fixtures/thinkpad-t480-two-batteries-discharging"
UPOWERD = "/usr/libexec/upowerd"


class PrivateBus:
    """A dbus-daemon of its own (the project's test buses use the same policy)."""

    def __init__(self, directory):
        os.makedirs(directory, exist_ok=True)
        socket = os.path.join(directory, "bus")
        conf = os.path.join(directory, "bus.conf")
        with open(conf, "w") as f:
            f.write(BUS_CONF.format(socket=socket))
        self.proc = subprocess.Popen(["dbus-daemon", f"--config-file={conf}", "--nofork", "--nopidfile", "--print-address=1"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        # dbus-daemon prints the address once it listens.
        self.address = self.proc.stdout.readline().strip().split(",")[0]
        if not self.address:
            raise RuntimeError("dbus-daemon did not start")

    def stop(self):
        self.proc.kill()   # --nofork outside systemd ignores SIGTERM
        self.proc.wait()


def thread_counters(pid):
    """{tid: (comm, voluntary, nonvoluntary, run ns, timeslices)} for the live threads."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return out
    for tid in tids:
        base = f"/proc/{pid}/task/{tid}"
        try:
            with open(base + "/comm") as f:
                comm = f.read().strip()
            vol = nonvol = 0
            with open(base + "/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches"):
                        vol = int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches"):
                        nonvol = int(line.split()[1])
            with open(base + "/schedstat") as f:
                run_ns, _, slices = (int(x) for x in f.read().split()[:3])
        except (FileNotFoundError, ProcessLookupError):
            continue
        out[int(tid)] = (comm, vol, nonvol, run_ns, slices)
    return out


class IdleWindow:
    """Per-thread counters over a window, sampled every second from outside (reading /proc wakes
    nothing in the target). Threads born in the window count from zero; a thread that exits loses
    at most its last second, and births and exits are reported."""

    def __init__(self, pid):
        self.pid = pid
        self.first = thread_counters(pid)
        self.last = dict(self.first)
        self.born, self.gone = set(), set()
        self.ticks0 = cpu_ticks(pid)

    def sample(self):
        now = thread_counters(self.pid)
        self.born |= set(now) - set(self.first)
        self.gone |= set(self.last) - set(now)
        self.last.update(now)

    def finish(self, span):
        self.sample()
        self.span = span
        self.ticks = cpu_ticks(self.pid) - self.ticks0
        self.hwm = status_field(self.pid, "VmHWM")
        self.threads_now = len(os.listdir(f"/proc/{self.pid}/task"))
        self.wchan = {}
        for tid in self.last:
            try:
                with open(f"/proc/{self.pid}/task/{tid}/wchan") as f:
                    self.wchan[tid] = f.read().strip()
            except OSError:
                pass
        self.per = {}
        for tid, (comm, vol, nonvol, run, slices) in self.last.items():
            b = self.first.get(tid, (comm, 0, 0, 0, 0))
            self.per[tid] = (comm, vol - b[1], nonvol - b[2], run - b[3], slices - b[4])
        self.vol = sum(p[1] for p in self.per.values())
        self.nonvol = sum(p[2] for p in self.per.values())
        self.run_ns = sum(p[3] for p in self.per.values())
        self.slices = sum(p[4] for p in self.per.values())

    def wakeups(self):
        """Each voluntary switch is a sleep that a wakeup ended (or will end); a thread started in
        the window runs once without having slept, so it counts too."""
        return (self.vol + len(self.born)) / self.span

    def cpu_pct(self):
        return self.run_ns / 1e9 / self.span * 100

    def threads_text(self):
        parts = []
        for tid, (comm, vol, nonvol, run, slices) in sorted(self.per.items(), key=lambda kv: (-kv[1][1], kv[0])):
            tag = " (born in the window)" if tid in self.born else ""
            tag += " (exited)" if tid in self.gone else (f" (sleeps in {self.wchan[tid]})" if self.wchan.get(tid) not in (None, "0") else "")
            parts.append(f"`{comm}`[{tid}]{tag} {vol} vol + {nonvol} invol, {slices} slices, {run/1e6:.2f} ms")
        return "; ".join(parts)


def observe(windows, seconds):
    """Samples every IdleWindow about once a second for `seconds`; returns the span measured."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        time.sleep(min(1.0, seconds - (time.monotonic() - t0)))
        for w in windows.values():
            w.sample()
    span = time.monotonic() - t0
    for w in windows.values():
        w.finish(span)
    return span


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} within {timeout} s")


def start_joule_daemon(work, bus, binary=JOULE, name="joule", config=None):
    root = os.path.join(work, f"daemon-{name}-root")
    shutil.copytree(DAEMON_FIXTURE, root, symlinks=True)
    for d in ("state", "runtime"):
        os.makedirs(os.path.join(work, f"daemon-{name}-{d}"), exist_ok=True)
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address, JOULE_STATE_DIR=os.path.join(work, f"daemon-{name}-state"),
               JOULE_RUNTIME_DIR=os.path.join(work, f"daemon-{name}-runtime"))
    for k in ("DBUS_SESSION_BUS_ADDRESS", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LD_PRELOAD", "UMOCKDEV_DIR"):
        env.pop(k, None)
    logpath = os.path.join(work, f"{name}-daemon.log")
    log_file = open(logpath, "w")
    if config is None:
        # A named config must exist (a missing one is an error since issue 32): an empty one is the defaults.
        config = os.path.join(work, "empty-joule.yaml")
        open(config, "a").close()
    cmd = [binary, "daemon", "--root", root, "--config", config]
    proc = subprocess.Popen(cmd, env=env, stdout=log_file, stderr=log_file)
    log_file.close()
    read_log = lambda: open(logpath).read()
    try:
        wait_for(lambda: "joule daemon: ready: " in read_log() or proc.poll() is not None, 30, "joule daemon: not ready")
    except RuntimeError:
        proc.kill()
        raise
    if proc.poll() is not None:
        raise RuntimeError(f"joule daemon exited {proc.returncode}: {read_log()}")
    ready = [l for l in read_log().splitlines() if "joule daemon: ready: " in l][0]
    return proc, ready.split("ready: ", 1)[1]


def start_upowerd(work, bus, fixture=DAEMON_FIXTURE, name="daemon-upower"):
    """As upower's own src/linux/integration-test.py runs it: under umockdev's preload with the
    fixture as UMOCKDEV_DIR, a private system bus, an empty config, a writable history dir,
    `upowerd -v -r`, and a logind mock (dbusmock's template) for its inhibitor lock."""
    root = os.path.join(work, name + "-root")
    shutil.copytree(fixture, root, symlinks=True)
    history = os.path.join(work, name + "-history")
    os.makedirs(history, exist_ok=True)
    conf = os.path.join(work, name + ".conf")
    open(conf, "w").close()
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address)
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    logind = subprocess.Popen([PY, "-m", "dbusmock", "--system", "--template", "logind", "--parameters",
                               json.dumps({"CanHybridSleep": "yes"})], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    busctl = ["busctl", f"--address={bus.address}"]
    wait_for(lambda: subprocess.run(busctl + ["status", "org.freedesktop.login1"], capture_output=True).returncode == 0,
             10, "the logind mock did not start")
    env.update(UMOCKDEV_DIR=root, LD_PRELOAD=PRELOAD, UPOWER_CONF_FILE_NAME=conf, UPOWER_HISTORY_DIR=history,
               SYSTEMD_DEVICE_VERIFY_SYSFS="0")
    log_file = open(os.path.join(work, name + ".log"), "w")
    proc = subprocess.Popen([UPOWERD, "-v", "-r"], env=env, stdout=log_file, stderr=subprocess.STDOUT)
    log_file.close()
    probe = busctl + ["get-property", "org.freedesktop.UPower", "/org/freedesktop/UPower", "org.freedesktop.UPower", "DaemonVersion"]
    try:
        wait_for(lambda: proc.poll() is not None or subprocess.run(probe, capture_output=True).returncode == 0, 10,
                 "upowerd did not answer DaemonVersion")
    except RuntimeError:
        proc.kill()
        logind.terminate()
        raise
    if proc.poll() is not None:
        logind.terminate()
        raise RuntimeError(f"upowerd exited {proc.returncode}: {open(os.path.join(work, name + '.log')).read()[-2000:]}")
    version = subprocess.run(probe, capture_output=True, text=True).stdout.split()[-1].strip('"')
    return proc, logind, version


def bench_daemon(work):
    log(f"daemon: joule daemon and upowerd idle for {DAEMON_SECONDS} s each (side by side, own buses)")
    joule_bus = PrivateBus(os.path.join(work, "bus-joule"))
    upower_bus = PrivateBus(os.path.join(work, "bus-upower"))
    # With BENCH_DYNAMIC=1, the shipped static build idles beside the measured one.
    static_bus = PrivateBus(os.path.join(work, "bus-static")) if JOULE != STATIC_JOULE and os.access(STATIC_JOULE, os.X_OK) else None
    joule = upowerd = logind = static = None
    upower_error = None
    try:
        joule, ready = start_joule_daemon(work, joule_bus)
        if static_bus:
            static, _ = start_joule_daemon(work, static_bus, STATIC_JOULE, "joule-static")
        if not os.access(UPOWERD, os.X_OK):
            upower_error = f"{UPOWERD} is not installed (apt package upower)"
        else:
            try:
                upowerd, logind, up_version = start_upowerd(work, upower_bus)
            except RuntimeError as e:
                upower_error = str(e)
        # Warm-up: both finish starting (upowerd re-polls a battery whose status is Unknown every
        # second for 5 s after start) before the window opens.
        warm = 10
        time.sleep(warm)
        windows = {"joule": IdleWindow(joule.pid)}
        if upowerd:
            windows["upowerd"] = IdleWindow(upowerd.pid)
        if static:
            windows["static"] = IdleWindow(static.pid)
        span = observe(windows, DAEMON_SECONDS)
        if joule.poll() is not None or (upowerd and upowerd.poll() is not None):
            raise RuntimeError("a daemon exited during the idle window")

        # Property reads, after the idle window so that they do not count in it.
        spec = [{"label": "joule LowPowerMode", "address": joule_bus.address, "dest": "org.joule.Energy1",
                 "path": "/org/joule/Energy1", "iface": "org.joule.Energy1", "prop": "LowPowerMode"},
                {"label": "joule Percentage", "address": joule_bus.address, "dest": "org.joule.Energy1",
                 "path": "/org/joule/Energy1", "iface": "org.joule.Energy1", "prop": "Percentage"},
                {"label": "bus driver", "address": joule_bus.address, "prop": None}]
        if upowerd:
            spec += [{"label": "upowerd OnBattery", "address": upower_bus.address, "dest": "org.freedesktop.UPower",
                      "path": "/org/freedesktop/UPower", "iface": "org.freedesktop.UPower", "prop": "OnBattery"},
                     {"label": "upowerd Percentage", "address": upower_bus.address, "dest": "org.freedesktop.UPower",
                      "path": "/org/freedesktop/UPower/devices/DisplayDevice", "iface": "org.freedesktop.UPower.Device",
                      "prop": "Percentage"}]
        log(f"daemon: {DAEMON_READS} Properties.Get round trips per property")
        reads = json.loads(subprocess.run([PY, "-c", DBUS_READS, json.dumps(spec), str(DAEMON_READS)],
                                          capture_output=True, text=True, check=True).stdout)
    finally:
        stop_processes((joule, upowerd, static))
        if logind:
            logind.terminate()
            logind.wait()
        joule_bus.stop()
        upower_bus.stop()
        if static_bus:
            static_bus.stop()

    j = windows["joule"]
    u = windows.get("upowerd")
    peer = f"upowerd {up_version} (`-v -r`, umockdev)" if u else "upowerd (did not run)"
    jcmd = (f"cp -a {DAEMON_FIXTURE} /tmp/d && DBUS_SYSTEM_BUS_ADDRESS=(private bus) JOULE_STATE_DIR=… JOULE_RUNTIME_DIR=… "
            f"{JOULE_REL} daemon --root /tmp/d --config (empty file)  (idle {span:.0f} s after {warm} s)")
    ucmd = (f"UMOCKDEV_DIR=(copy of {DAEMON_FIXTURE}) LD_PRELOAD={PRELOAD} UPOWER_CONF_FILE_NAME=(empty) "
            f"UPOWER_HISTORY_DIR=(temp) DBUS_SYSTEM_BUS_ADDRESS=(private bus) {UPOWERD} -v -r")

    def ratio(peer_value, joule_value):
        return None if not u or joule_value <= 0 else peer_value / joule_value

    rows.append((f"`joule daemon` idle, battery fixture discharging: wakeups/s, voluntary switches of all its threads "
                 f"({len(j.per)} seen) + threads started", f"{j.wakeups():.2f} /s", peer + (f", {len(u.per)} threads" if u else ""),
                 f"{u.wakeups():.2f} /s" if u else "", ratio(u.wakeups(), j.wakeups()) if u else None, "≤ 1 /s",
                 "met" if j.wakeups() <= 1 else "missed", jcmd))
    rows.append(("〃 CPU, run time of all threads ÷ wall", f"{j.cpu_pct():.4f} % of a core", "upowerd, same window",
                 f"{u.cpu_pct():.4f} %" if u else "", ratio(u.cpu_pct(), j.cpu_pct()) if u else None, "< 0.05 %",
                 "met" if j.cpu_pct() < 0.05 else "missed", "〃"))
    rows.append(("〃 peak RSS (VmHWM)", f"{j.hwm/1024:.1f} MiB", "upowerd", f"{u.hwm/1024:.1f} MiB" if u else "",
                 ratio(u.hwm, j.hwm) if u else None, "≤ 12 MiB", "met" if j.hwm <= 12 * 1024 else "missed", "〃"))
    st = windows.get("static")
    if st:
        rows.append(("〃 peak RSS of the `make release` binary (--static-swift-stdlib, what `make install` ships), same window",
                     f"{st.hwm/1024:.1f} MiB", "upowerd", f"{u.hwm/1024:.1f} MiB" if u else "",
                     ratio(u.hwm, st.hwm) if u else None, "≤ 12 MiB", "met" if st.hwm <= 12 * 1024 else "missed",
                     f"make release && cp -a {DAEMON_FIXTURE} /tmp/d && … .build-release/release/joule daemon --root /tmp/d --config /nonexistent.yaml"))
    jl, jp = reads["joule LowPowerMode"], reads["joule Percentage"]
    client = f"/usr/bin/python3 (python3-dbus) call_blocking Properties.Get × {DAEMON_READS} after 200 warm-up, interleaved in 10 blocks"
    rows.append((f"`joule daemon` property read, client round trip: `LowPowerMode` (b), median (p99)",
                 f"{jl['median_us']/1000:.3f} ms ({jl['p99_us']/1000:.3f} ms)",
                 "upowerd `OnBattery` (b), /org/freedesktop/UPower" if u else "",
                 f"{reads['upowerd OnBattery']['median_us']/1000:.3f} ms ({reads['upowerd OnBattery']['p99_us']/1000:.3f} ms)" if u else "",
                 ratio(reads["upowerd OnBattery"]["median_us"], jl["median_us"]) if u else None,
                 "≤ 1 ms median", "met" if jl["median_us"] <= 1000 else "missed", client))
    rows.append(("〃 `Percentage` (d), median (p99)", f"{jp['median_us']/1000:.3f} ms ({jp['p99_us']/1000:.3f} ms)",
                 "upowerd DisplayDevice `Percentage` (d)" if u else "",
                 f"{reads['upowerd Percentage']['median_us']/1000:.3f} ms ({reads['upowerd Percentage']['p99_us']/1000:.3f} ms)" if u else "",
                 ratio(reads["upowerd Percentage"]["median_us"], jp["median_us"]) if u else None,
                 "≤ 1 ms median", "met" if jp["median_us"] <= 1000 else "missed", "〃"))

    hz = os.sysconf("SC_CLK_TCK")
    bd = reads["bus driver"]
    notes.append(f"Daemon: both daemons ran side by side, each on its own private dbus-daemon, on copies of "
                 f"{DAEMON_FIXTURE} (BAT1 discharging at 41 %, BAT0 idle with status Unknown, AC offline), "
                 f"{warm} s after start-up and then idle for {span:.0f} s with no client. joule was ready with "
                 f"\"{ready}\" (default config: adaptive polling); upower: {ucmd}" +
                 (f"; it saw OnBattery {reads['upowerd OnBattery']['value']} and Percentage "
                  f"{float(reads['upowerd Percentage']['value']):.2f}, joule {reads['joule Percentage']['value']}." if u else "."))
    notes.append(f"Daemon wakeups are voluntary context switches (the thread went to sleep, so something had to wake "
                 f"it) summed over every thread in /proc/PID/task/*/status, sampled each second so that threads "
                 f"born in the window count too, plus one for each thread started in the window (its first run "
                 f"follows no sleep). A thread's last wakeup before it exits belongs to a sleep already counted. Involuntary switches and the schedstat timeslice count (third field, "
                 f"every time a thread was put on a CPU) also count preemptions by other load on this shared machine, "
                 f"which are not the daemon waking; both are shown per thread for completeness. joule: {j.vol} "
                 f"voluntary, {len(j.born)} threads started, {j.nonvol} involuntary, {j.slices} timeslices in {span:.0f} s; "
                 f"per thread: {j.threads_text()}." + (f" upowerd: {u.vol} voluntary, {len(u.born)} threads started, "
                 f"{u.nonvol} involuntary, {u.slices} timeslices; per thread: {u.threads_text()}." if u else ""))
    notes.append(f"Daemon CPU is the threads' run time (schedstat ns); utime+stime from /proc/PID/stat (which also "
                 f"counts exited threads) agree at USER_HZ={hz}: joule {j.ticks} ticks = {j.ticks/hz/span*100:.3f} %"
                 + (f", upowerd {u.ticks} ticks = {u.ticks/hz/span*100:.3f} %" if u else "") +
                 f" (one tick is {100/hz/span:.3f} %). upowerd's RSS includes libumockdev-preload, which it needs to see "
                 f"the fixture; joule reads the fixture with --root and loads no preload. Under systemd, joule.service's "
                 f"WatchdogSec=60s adds one ping every 30 s (0.03 wakeups/s), not in this figure (no NOTIFY_SOCKET here).")
    notes.append(f"Property reads: one python3-dbus process, one connection per bus, blocking calls; the round trip "
                 f"crosses dbus-daemon twice. Its floor, the bus driver answering GetId itself, was "
                 f"{bd['median_us']/1000:.3f} ms median ({bd['p99_us']/1000:.3f} ms p99) on joule's bus: most of "
                 f"each figure is the client and dbus-daemon, not the daemon being read.")
    if st:
        built = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(STATIC_JOULE)))
        notes.append(f"The `make release` joule (static Swift runtime, built {built}) idled in the same window on its own "
                     f"bus: {st.wakeups():.2f} wakeups/s ({st.vol} voluntary, {len(st.born)} threads started), {st.cpu_pct():.4f} % of a core, peak RSS {st.hwm/1024:.1f} MiB; "
                     f"per thread: {st.threads_text()}.")
    elif JOULE != STATIC_JOULE and not os.access(STATIC_JOULE, os.X_OK):
        notes.append(f"No `make release` binary at {os.path.relpath(STATIC_JOULE, ROOT)}, so the installed build's RSS row is "
                     f"missing (run `make release` before `make bench` to add it).")
    if upower_error:
        notes.append(f"upowerd could not run here: {upower_error}. joule's rows are judged against the targets alone.")


# ---------------------------------------------------------------- joule daemon with 100 waiting transfers

QUEUE_TRANSFERS = int(os.environ.get("BENCH_QUEUE_TRANSFERS", "100"))
QUEUE_RELOADS = int(os.environ.get("BENCH_QUEUE_RELOADS", "20"))

# Adds the transfers through org.joule.Transfers1.Add(a{sv}) on one python3-dbus connection, then
# List: prints the state and waitingFor of every transfer the caller sees.
QUEUE_ADD = r"""
import dbus, json, sys
address, directory, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
bus = dbus.bus.BusConnection(address)
obj = bus.get_object("org.joule.Transfers1", "/org/joule/Transfers1")
transfers = dbus.Interface(obj, "org.joule.Transfers1")
for i in range(n):
    # Port 9 (discard): nothing listens, and nothing should ever connect while the conditions are unmet.
    transfers.Add(dbus.Dictionary({"url": dbus.String(f"http://127.0.0.1:9/queued-{i}.bin"),
                                   "destination": dbus.String(f"{directory}/queued-{i}.bin"),
                                   "discretionary": dbus.Boolean(True)}, signature="sv"))
listed = json.loads(str(transfers.List()))
print(json.dumps([{"id": t["id"], "state": t["state"], "waitingFor": t["waitingFor"]} for t in listed]))
"""


def bench_queue(work):
    """`joule daemon` with QUEUE_TRANSFERS discretionary transfers waiting beside an idle one: the
    added wakeups, CPU and RSS over one idle window, then the CPU of one re-evaluation."""
    log(f"queue: two joule daemons idle for {DAEMON_SECONDS} s side by side, one with {QUEUE_TRANSFERS} waiting transfers")
    buses = {name: PrivateBus(os.path.join(work, f"bus-{name}")) for name in ("queue-idle", "queue-full")}
    configs = {name: os.path.join(work, f"{name}.yaml") for name in buses}   # absent at start: the defaults
    procs = {}
    logs = {name: os.path.join(work, f"{name}-daemon.log") for name in buses}
    reload_cost = {}
    try:
        ready = {}
        for name, bus in buses.items():
            procs[name], ready[name] = start_joule_daemon(work, bus, name=name, config=configs[name])
        dest = os.path.join(work, "queue-downloads")
        os.makedirs(dest, exist_ok=True)
        t = time.perf_counter()
        out = subprocess.run([PY, "-c", QUEUE_ADD, buses["queue-full"].address, dest, str(QUEUE_TRANSFERS)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"queue: Add failed: {out.stderr[-2000:]}")
        add_seconds = time.perf_counter() - t
        listed = json.loads(out.stdout)
        states = {}
        for tr in listed:
            states[tr["state"]] = states.get(tr["state"], 0) + 1
        waiting_for = sorted({c for tr in listed for c in tr["waitingFor"]})
        if len(listed) != QUEUE_TRANSFERS or states.get("waiting") != QUEUE_TRANSFERS:
            raise RuntimeError(f"queue: List has {len(listed)} transfers, states {states}; expected {QUEUE_TRANSFERS} waiting")
        if os.listdir(dest):
            raise RuntimeError(f"queue: files appeared in {dest}: {os.listdir(dest)[:5]}")

        warm = 10
        time.sleep(warm)
        windows = {name: IdleWindow(p.pid) for name, p in procs.items()}
        span = observe(windows, DAEMON_SECONDS)
        if any(p.poll() is not None for p in procs.values()):
            raise RuntimeError("queue: a daemon exited during the idle window")

        # One re-evaluation each: a SIGHUP that changes transfers.maxConcurrent (5 ↔ 6), so
        # the reload evaluates every live transfer once. The same reloads on the idle daemon
        # give the cost of the rest of a reload (config parse, engines, workloads), subtracted.
        if QUEUE_RELOADS > 0:
            log(f"queue: {QUEUE_RELOADS} config reloads (SIGHUP) each, alternating")
            meters = {name: IdleWindow(p.pid) for name, p in procs.items()}
            t_r = time.monotonic()
            for i in range(QUEUE_RELOADS):
                for name, p in procs.items():
                    with open(configs[name], "w") as f:
                        f.write(f"transfers:\n  maxConcurrent: {5 + i % 2}\n")
                    before = open(logs[name]).read().count("SIGHUP: reloaded")
                    p.send_signal(signal.SIGHUP)
                    wait_for(lambda: open(logs[name]).read().count("SIGHUP: reloaded") > before, 10,
                             f"queue: {name} did not log its reload")
                    time.sleep(0.2)   # the rest of the reload (ready status) settles
                    meters[name].sample()
            for m in meters.values():
                m.finish(time.monotonic() - t_r)
            reload_cost = {name: m.run_ns / QUEUE_RELOADS for name, m in meters.items()}
            reload_ticks = {name: m.ticks for name, m in meters.items()}
            relisted = subprocess.run([PY, "-c", QUEUE_ADD, buses["queue-full"].address, dest, "0"],
                                      capture_output=True, text=True, check=True).stdout
            after = {}
            for tr in json.loads(relisted):
                after[tr["state"]] = after.get(tr["state"], 0) + 1
    finally:
        stop_processes(procs.values())
        for bus in buses.values():
            bus.stop()

    idle, full = windows["queue-idle"], windows["queue-full"]

    # The table's ratio column is peer ÷ joule for costs (here idle ÷ 100 waiting: ≥ 1 means no
    # more than idle); the cell itself says 100 waiting ÷ idle.
    def vs(full_value, idle_value):
        return None if full_value <= 0 else idle_value / full_value

    def times_idle(full_value, idle_value):
        return f" ({full_value / idle_value:.2f}× idle)" if idle_value > 0 else ""

    cmd = (f"cp -a {DAEMON_FIXTURE} /tmp/q && … {JOULE_REL} daemon --root /tmp/q (as the daemon rows) + "
           f"{QUEUE_TRANSFERS} × org.joule.Transfers1.Add({{url, destination, discretionary: true}}), beside an idle one "
           f"(both idle {span:.0f} s after {warm} s)")
    rows.append((f"`joule daemon` with {QUEUE_TRANSFERS} discretionary transfers waiting (for {', '.join(waiting_for)}): "
                 f"wakeups/s, voluntary switches of all threads + threads started",
                 f"{full.wakeups():.2f} /s{times_idle(full.wakeups(), idle.wakeups())}", "the same daemon idle, no transfers, same window", f"{idle.wakeups():.2f} /s",
                 vs(full.wakeups(), idle.wakeups()), "no more than idle",
                 "met" if full.wakeups() <= idle.wakeups() * 1.1 + 0.05 else "missed", cmd))
    rows.append(("〃 CPU, run time of all threads ÷ wall", f"{full.cpu_pct():.4f} % of a core{times_idle(full.cpu_pct(), idle.cpu_pct())}",
                 "idle, same window",
                 f"{idle.cpu_pct():.4f} %", vs(full.cpu_pct(), idle.cpu_pct()), "no more than idle",
                 "met" if full.cpu_pct() <= idle.cpu_pct() * 1.1 + 0.002 else "missed", "〃"))
    rows.append(("〃 peak RSS (VmHWM)", f"{full.hwm/1024:.1f} MiB{times_idle(full.hwm, idle.hwm)}", "idle", f"{idle.hwm/1024:.1f} MiB",
                 vs(full.hwm, idle.hwm), "", "", "〃"))
    if reload_cost:
        per_eval = reload_cost["queue-full"] - reload_cost["queue-idle"]
        rows.append((f"〃 one re-evaluation of the {QUEUE_TRANSFERS} waiting (a SIGHUP reload with 100 waiting, minus the "
                     f"same reload with none; mean of {QUEUE_RELOADS})",
                     f"{per_eval/1e6:.2f} ms CPU", "the whole reload, idle daemon",
                     f"{reload_cost['queue-idle']/1e6:.2f} ms", None, "", "",
                     f"kill -HUP after rewriting transfers.maxConcurrent (5 ↔ 6) in each daemon's --config"))
    notes.append(f"Queue: two `joule daemon`s from the same binary, each on its own private dbus-daemon, state dir and copy "
                 f"of {DAEMON_FIXTURE} (AC offline, discharging: a discretionary transfer waits for {', '.join(waiting_for)}). "
                 f"{QUEUE_TRANSFERS} downloads were added to one through org.joule.Transfers1.Add from one python3-dbus "
                 f"connection in {add_seconds:.2f} s; List then showed {states} and no file was written. Both then idled "
                 f"{span:.0f} s, {warm} s after the last Add, counted as in the daemon rows; \"met\" allows 10 % + 0.05 "
                 f"wakeups/s (+ 0.002 % CPU) of noise over idle. With {QUEUE_TRANSFERS} waiting: "
                 f"{full.vol} voluntary, {len(full.born)} threads started, {full.ticks} ticks utime+stime; per thread: "
                 f"{full.threads_text()}. Idle: {idle.vol} voluntary, {len(idle.born)} threads started, {idle.ticks} ticks; "
                 f"per thread: {idle.threads_text()}.")
    if reload_cost:
        notes.append(f"Queue re-evaluation: the scheduler re-evaluates on a change of readings or settings (it never polls), "
                     f"so each of {QUEUE_RELOADS} SIGHUPs per daemon rewrote its config with transfers.maxConcurrent 5 ↔ 6 "
                     f"(a settings change: one pass over the live transfers: SQLite list, a statvfs and the conditions each); "
                     f"the bench waited for the daemon's \"SIGHUP: reloaded\" log line and 0.2 s more. CPU is thread run time "
                     f"(schedstat ns) over the reloads: {reload_cost['queue-full']/1e6:.2f} ms per reload with "
                     f"{QUEUE_TRANSFERS} waiting, {reload_cost['queue-idle']/1e6:.2f} ms idle (ticks: "
                     f"{reload_ticks['queue-full']} vs {reload_ticks['queue-idle']}); the difference is the evaluation. "
                     f"Afterwards List showed {after}.")


# ---------------------------------------------------------------- report

def write_report(m_start, m_end, started, fuzz):
    out = []
    out.append("# Benchmarks\n")
    out.append(f"Written by `make bench` (scripts/bench.py) on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))}, "
               f"in {time.time()-started:.0f} s. Medians of repeated runs; each ratio is peer ÷ joule (cost) or joule ÷ peer "
               f"(throughput), both measured in this run. The machine is shared and noisy: read the ratios, not the absolutes.\n")
    out.append(f"Machine: {m_start['nproc']} CPUs, {m_start['cpu']}, Linux {m_start['kernel']}; "
               f"load average {' '.join(m_start['load'])} at start, {' '.join(m_end['load'])} at the end.\n")
    out.append("| Benchmark | Joule | Peer | Peer value | Ratio (× better) | Target | Verdict | Reproduce |")
    out.append("|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = "" if r[4] is None else f"{r[4]:.1f}×"
        out.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {ratio} | {r[5]} | {r[6]} | `{r[7]}` |")
    out.append("\n## Notes\n")
    for n in notes:
        out.append(f"- {n}")
    if fuzz:
        out.append("\n" + fuzz)
    with open(OUT, "w") as f:
        f.write("\n".join(out) + "\n")
    log(f"wrote {OUT}")


# ---------------------------------------------------------------- the session agent idle

SESSION_SECONDS = int(os.environ.get("BENCH_SESSION_SECONDS", "60"))


def bench_session(work):
    """`joule session` idle on an X11 desktop (Xvfb, openbox, one window) following a joule
    daemon, beside the least an event-driven focus watcher can do: `xprop -spy` on the root
    window's _NET_ACTIVE_WINDOW. Both sleep in poll until the desktop changes; nothing changes
    in the window, so every wakeup counted is one of their own."""
    for tool in ("/usr/bin/Xvfb", "/usr/bin/openbox", "/usr/bin/xprop"):
        if not os.access(tool, os.X_OK):
            notes.append(f"Session agent idle: {tool} is missing (scripts/install-deps.sh installs it).")
            return
    log(f"session: joule session and xprop -spy idle for {SESSION_SECONDS} s on Xvfb + openbox")
    display = f":{random.randint(300, 900)}"
    bus = PrivateBus(os.path.join(work, "bus-session"))
    xenv = dict(os.environ, DISPLAY=display)
    procs = []
    try:
        procs.append(subprocess.Popen(["/usr/bin/Xvfb", display, "-screen", "0", "800x600x24", "-nolisten", "tcp"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for(lambda: os.path.exists(f"/tmp/.X11-unix/X{display[1:]}"), 30, "Xvfb did not start")
        procs.append(subprocess.Popen(["/usr/bin/openbox"], env=xenv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(1)
        procs.append(subprocess.Popen([PY, "Tests/Support/x11_window.py", "bench-window"], env=xenv,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        daemon, _ = start_joule_daemon(work, bus, name="session-daemon")
        procs.append(daemon)
        home = os.path.join(work, "session-home")
        os.makedirs(home, exist_ok=True)
        env = dict(xenv, DBUS_SESSION_BUS_ADDRESS=bus.address, DBUS_SYSTEM_BUS_ADDRESS=bus.address, HOME=home,
                   XDG_CONFIG_HOME=os.path.join(home, "config"), JOULE_STATE_DIR=os.path.join(home, "state"))
        for k in ("SWAYSOCK", "I3SOCK", "WAYLAND_DISPLAY"):
            env.pop(k, None)
        logpath = os.path.join(work, "session.log")
        with open(logpath, "w") as log_file:
            agent = subprocess.Popen([JOULE, "session"], env=env, stdout=log_file, stderr=log_file)
        procs.append(agent)
        wait_for(lambda: "following the focus" in open(logpath).read() or agent.poll() is not None, 30, "joule session: not following")
        spy = subprocess.Popen(["/usr/bin/xprop", "-spy", "-root", "_NET_ACTIVE_WINDOW"], env=xenv,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(spy)
        time.sleep(5)
        windows = {"session": IdleWindow(agent.pid), "xprop": IdleWindow(spy.pid)}
        span = observe(windows, SESSION_SECONDS)
        if agent.poll() is not None:
            raise RuntimeError("joule session exited during the idle window: " + open(logpath).read())
    finally:
        stop_processes(tuple(reversed(procs)))
        bus.stop()
    a, x = windows["session"], windows["xprop"]
    cmd = (f"Xvfb {display} + openbox + one window; joule daemon on a private bus; DISPLAY={display} "
           f"DBUS_SESSION_BUS_ADDRESS=(that bus) {JOULE_REL} session  (idle {span:.0f} s after 5 s)")
    rows.append((f"`joule session` idle on X11, following a joule daemon: wakeups/s of all its threads ({len(a.per)} seen)",
                 f"{a.wakeups():.3f} /s", "`xprop -spy -root _NET_ACTIVE_WINDOW` (x11-utils)", f"{x.wakeups():.3f} /s",
                 None, "no periodic wakeup (≤ 0.05 /s)", "met" if a.wakeups() <= 0.05 else "missed", cmd))
    rows.append(("〃 CPU, run time of all threads ÷ wall", f"{a.cpu_pct():.4f} % of a core", "xprop -spy",
                 f"{x.cpu_pct():.4f} %", None, "< 0.01 %", "met" if a.cpu_pct() < 0.01 else "missed", "〃"))
    rows.append(("〃 peak RSS (VmHWM)", f"{a.hwm/1024:.1f} MiB", "xprop -spy", f"{x.hwm/1024:.1f} MiB",
                 x.hwm / a.hwm if a.hwm else None, "≤ 12 MiB", "met" if a.hwm <= 12 * 1024 else "missed", "〃"))
    notes.append("Session agent idle, per thread: " + a.threads_text())


def main():
    started = time.time()
    m_start = machine()
    subprocess.run(["scripts/install-deps.sh", "python3-psutil", "tshark", "umockdev", "upower", "dbus-daemon",
                    "python3-dbus", "python3-dbusmock", "systemd", "curl", "lm-sensors", "valgrind", "time"], check=True)
    if os.environ.get("BENCH_SKIP_BUILD") != "1":
        build()
    work = tempfile.mkdtemp(prefix="joule-bench-")
    groups = [("sampling", bench_sampling), ("energy", bench_energy), ("status", bench_status), ("beacons", bench_beacons),
              ("watch", bench_watch_cost), ("latency", bench_latency), ("daemon", bench_daemon),
              ("transfers", bench_transfers), ("queue", bench_queue), ("beacon-wakeups", bench_beacon_wakeups),
              ("location", bench_location), ("session", bench_session)]
    only = [g for g in os.environ.get("BENCH_ONLY", "").split(",") if g]
    unknown = set(only) - {name for name, _ in groups}
    if unknown:
        sys.exit(f"BENCH_ONLY: unknown group(s) {', '.join(sorted(unknown))}; known: {', '.join(n for n, _ in groups)}")
    if only:
        notes.append(f"Partial run (BENCH_ONLY={','.join(only)}): only those rows were measured.")
    try:
        for name, run in groups:
            if only and name not in only:
                continue
            run(work) if run.__code__.co_argcount else run()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    # Keep the hand-written analysis and the section `make fuzz` wrote, if any.
    fuzz = None
    if os.path.exists(OUT):
        text = open(OUT).read()
        starts = [i for i in (text.find("## Missed targets"), text.find("## Fuzzing")) if i >= 0]
        if starts:
            fuzz = text[min(starts):].rstrip()
    write_report(m_start, machine(), started, fuzz)


if __name__ == "__main__":
    main()
