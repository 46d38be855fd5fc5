#!/usr/bin/env python3
"""Seeds the fuzz corpora of `make fuzz` from the fixtures: HCI events and AD data out of the
btsnoop captures, the captures themselves, power_supply and thermal attributes in the line
order Fuzz/FuzzEntry.swift reads them, /proc/stat files, and this machine's /proc/PID/stat."""
import glob, hashlib, os, struct, sys

out = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def put(target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)

def events(blob):
    link = struct.unpack(">I", blob[12:16])[0] if len(blob) >= 16 else 0
    pos = 16
    while pos + 24 <= len(blob):
        incl, flags = struct.unpack(">I", blob[pos + 4:pos + 8])[0], struct.unpack(">I", blob[pos + 8:pos + 12])[0]
        pkt = blob[pos + 24:pos + 24 + incl]
        pos += 24 + incl
        if link == 1002 and pkt[:1] == b"\x04":
            yield pkt[1:]
        elif link == 2001 and flags & 0xFFFF == 3:
            yield pkt

def ad_data(event):
    if len(event) < 4 or event[0] != 0x3E or event[2] != 0x02:
        return
    p, i = event[3:], 1
    for _ in range(p[0] if p else 0):
        if i + 9 > len(p):
            return
        n = p[i + 8]
        yield p[i + 9:i + 9 + n]
        i += 10 + n

for path in glob.glob(os.path.join(root, "hw-fixtures/bluetooth/*.btsnoop")):
    blob = open(path, "rb").read()
    put("btsnoop", blob[:4096])
    if blob[:8] == b"btsnoop\0":
        for ev in events(blob):
            put("hci", ev)
            for ad in ad_data(ev):
                put("ad", ad)
                # The manufacturer / service payloads alone, for the direct decoder calls.
                j = 0
                while j + 1 < len(ad) and ad[j]:
                    put("ad", ad[j + 2:j + 1 + ad[j]])
                    j += 1 + ad[j]

SUPPLY = ["type", "status", "capacity", "energy_now", "energy_full", "energy_full_design", "power_now", "voltage_now",
          "charge_now", "charge_full", "charge_full_design", "current_now", "voltage_min_design", "cycle_count",
          "capacity_level", "online", "present", "scope", "technology", "model_name", "manufacturer", "time_to_empty_now"]
THERMAL = ["temp", "type", "trip_point_0_temp", "trip_point_0_type", "trip_point_0_hyst", "trip_point_1_temp",
           "trip_point_1_type", "mode", "policy"]

def read(d, name):
    try:
        return open(os.path.join(d, name), "rb").read().strip()
    except OSError:
        return b"!"

for d in glob.glob(os.path.join(root, "hw-fixtures/*/sys/class/power_supply/*")):
    put("sysfs", b"\n".join(read(d, n) for n in SUPPLY))
for d in glob.glob(os.path.join(root, "hw-fixtures/*/sys/class/thermal/thermal_zone*")):
    put("thermal", b"\n".join(read(d, n) for n in THERMAL))
for path in glob.glob(os.path.join(root, "hw-fixtures/*/proc/stat")) + ["/proc/stat"]:
    put("cpustat", open(path, "rb").read())
for path in ["/proc/self/stat", "/proc/1/stat", "/proc/2/stat"] + glob.glob("/proc/[0-9]*/stat")[:20]:
    try:
        put("procstat", open(path, "rb").read())
    except OSError:
        pass
put("procstat", b"42 (a) (b) S 1 2 3 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 12345 1000000 100\n")

# Response heads, a line each as Fuzz/FuzzHTTPHead.swift reads them: Content-Range, Retry-After,
# ETag, Last-Modified, Location, status, offset asked for, Content-Length, Content-Encoding.
for head in [
    ["bytes 1000-4999/5000", "120", '"v1"', "Sun, 06 Nov 1994 08:49:37 GMT", "/next", "206", "1000", "5000", ""],
    ["bytes */1000", "Sunday, 06-Nov-94 08:49:37 GMT", 'W/"weak"', "Sun Nov  6 08:49:37 1994", "https://other.example/x", "416", "1000", "", "identity"],
    ["bytes 0-99/*", "Wed, 21 Oct 2015 07:28:00 GMT", '"abc"', "", "//cdn.example/a?b#c", "200", "0", "100", "gzip"],
    ["", "99999999999999999999999", "", "Thu, 01 Jan 1970 00:00:00 GMT", "file:///etc/shadow", "503", "0", "", ""],
    ["bytes 5-4/10", "-1", '"', "Mon, 31 Feb 2024 25:61:61 GMT", "ftp://example.org/f", "308", "5", "10", ""],
]:
    put("http", "\n".join(head).encode())

# The daemon's config: every YAML block of the README (configs, and fragments that must fail).
text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
for block in text.split("```yaml")[1:]:
    put("config", block.split("```")[0].encode())
put("config", b"lowPowerMode:\n  lowPowerAt: 20\n  lowPowerOffAt: 80\ntransfers:\n  maxConcurrent: 2\n")

# Lifecycle socket packets, both directions, and control-socket requests.
for packet in [
    b'{"request":"beginBackgroundTask","name":"upload"}', b'{"request":"endBackgroundTask","taskId":3}',
    b'{"request":"backgroundTimeRemaining"}', b'{"event":"didEnterBackground","state":"background","deadline":1700000000.5}',
    b'{"taskId":2,"remaining":29.5}', b'{"taskId":null,"remaining":0}', b'{"remaining":null}', b'{"remaining":12.25}',
    b'{"request":"transition","to":"background"}', b'{"request":"list"}', b'{"request":"events"}',
    b'{"request":"endBackgroundTask","taskId":1e400}', b'{"request":"beginBackgroundTask","name":"\\ud800"}',
]:
    put("lifecycle", packet)

# a{sv} requests in the byte grammar of Fuzz/FuzzBytes.swift: an entry is a key (a byte below
# 192 picks TransferRequest.keys[b % 15]) and a value (a kind byte, then its bytes).
KEYS = ["url", "destination", "upload", "method", "headers", "discretionary", "unmeteredOnly", "requireAC",
        "priority", "batch", "timeout", "beginAfter", "sha256", "onComplete", "session"]
WORDS = ["https://example.org/f", "/tmp/f", "GET", "put", "high", "Accept: */*"]

def free(s):
    b = s.encode()[:63]
    return bytes([255, len(b)]) + b

def sv(key, kind, payload):
    k = bytes([KEYS.index(key)]) if key in KEYS else free(key)
    return k + bytes([kind]) + payload

def word(w):
    return bytes([WORDS.index(w)])

for entries in [
    [sv("url", 0, word("https://example.org/f")), sv("destination", 0, word("/tmp/f"))],
    [sv("url", 0, word("https://example.org/f")), sv("upload", 0, word("/tmp/f")), sv("method", 0, word("put")),
     sv("headers", 9, bytes([2, 11]) + b"Accept: */*" + bytes([8]) + b"X-A: b c"), sv("priority", 0, word("high")),
     sv("timeout", 2, struct.pack(">d", 3600.0)), sv("discretionary", 1, b"\x01")],
    [sv("url", 0, word("https://example.org/f")), sv("destination", 0, word("/tmp/f")), sv("sha256", 0, free("ab" * 32)),
     sv("beginAfter", 5, struct.pack(">q", 60)), sv("session", 0, free("s1")), sv("batch", 0, free("nightly"))],
    [sv("url", 0, word("https://example.org/f")), sv("colour", 0, word("high"))],
    [sv("destination", 8, bytes([0]) + word("/tmp/f"))],
]:
    put("transferrequest", bytes([0, len(entries)]) + b"".join(entries))

# powercap: per reading, each zone's name, energy_uj and max_energy_range_uj (intel-rapl:0,
# :0:0, :1); from the fixtures' zones, then a wrap and a range beyond 2^63.
for d in glob.glob(os.path.join(root, "hw-fixtures/*/sys/devices/virtual/powercap/intel-rapl/intel-rapl:0")):
    zone = [read(d, n) for n in ["name", "energy_uj", "max_energy_range_uj"]]
    child = glob.glob(os.path.join(d, "intel-rapl:0:*"))
    sub = [read(child[0], n) for n in ["name", "energy_uj", "max_energy_range_uj"]] if child else [b"!"] * 3
    put("powercap", b"\n".join(zone + sub + [b"package-1", b"100", b"262143328850"] + zone + sub + [b"package-1", b"50", b"262143328850"]))
put("powercap", b"\n".join([b"package-0", b"18446744073709551000", b"18446744073709551615", b"core", b"5", b"10", b"psys", b"!EACCES", b"!EIO",
                            b"package-0", b"10", b"18446744073709551615", b"core", b"4", b"10", b"psys", b"1", b"2"]))

# cpufreq: policy0's files and the global knob files, in the order FuzzPowerFiles.swift writes them.
for d in glob.glob(os.path.join(root, "hw-fixtures/*/sys/devices/system/cpu/cpufreq/policy0")):
    names = ["scaling_governor", "scaling_available_governors", "energy_performance_preference",
             "energy_performance_available_preferences", "cpuinfo_min_freq", "cpuinfo_max_freq", "scaling_max_freq"]
    put("cpufreq", b"\n".join([read(d, n) for n in names] + [b"low-power balanced [performance]", b"default [powersave] performance"]))

for path in glob.glob(os.path.join(root, "hw-fixtures/*/sys/devices/platform/soc/soc:firmware/get_throttled")):
    put("throttled", open(path, "rb").read())
for flags in [b"0x0\n", b"50005\n", b"0xffffffff", b"0x1000000000", b"!EIO"]:
    put("throttled", flags)

# History rows in the byte grammar of Fuzz/FuzzHistoryRows.swift: a row kind byte (even: a
# sample), a value per column (a class byte, then its bytes), an in-range byte and its time.
def text_value(w):
    return bytes([4]) + free(w)

def real(x):
    return bytes([3]) + struct.pack(">d", x)

def small(n):
    return bytes([2, n + 20])

NULL = bytes([0])
for rows in [
    [bytes([0]) + small(1) + real(0) + text_value("minute") + real(60) + real(55.5) + text_value("discharging") + real(7.5)
     + real(8.1) + text_value("battery") + small(0) + small(1) + text_value("auto") + NULL + text_value("nominal") + bytes([10, 20, 2])
     + free("cpu") + bytes([0]) + real(48.5) + free("gpu") + bytes([1, 3]) + b"GPU" + real(51.0),
     bytes([1]) + real(0) + text_value("report") + text_value("r1") + text_value("cpu") + text_value("backup") + NULL + small(42)
     + NULL + small(3) + bytes([10, 40])],
    [bytes([0]) + small(2) + real(float("inf")) + text_value("hourly") + real(-1) + real(1e308) + NULL + real(-0.0) + real(float("-inf"))
     + NULL + small(-5) + small(0) + text_value("manual") + text_value("x") + text_value("critical") + bytes([250, 0])],
]:
    put("history", b"".join(rows))

# gpsd recordings: the whole walk, and its first lines alone.
for walk in glob.glob(os.path.join(root, "hw-fixtures", "location", "*.ndjson")):
    if walk.endswith(".expected.ndjson"):
        continue
    data = open(walk, "rb").read()
    put("tpv", data)
    put("tpv", b"".join(data.splitlines(keepends=True)[:12]))
