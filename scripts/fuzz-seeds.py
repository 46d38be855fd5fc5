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
