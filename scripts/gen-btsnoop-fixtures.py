#!/usr/bin/env python3
"""Writes hw-fixtures/bluetooth/*.btsnoop and, next to each, the output `joule beacons`
must print for it (*.expected.ndjson, and for the region capture *.monitor/*.range files).

The expected lines are written here from the values each advert was built with, by an
encoder written from the specifications, never by running Joule: they are the spec.
Run from the repository root: python3 scripts/gen-btsnoop-fixtures.py
For benchmarks, `--large OUT N` writes a capture of N mixed beacon adverts to OUT instead.
"""
import json
import math
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hw-fixtures", "bluetooth")
EPOCH_OFFSET = 0x00DCDDB30F2F8000  # btsnoop counts microseconds from year 0
BASE_US = 1_700_000_000_000_000  # 2023-11-14T22:13:20Z

# ---------------------------------------------------------------- AD and beacon encoders

def ad(ad_type, data):
    return bytes([len(data) + 1, ad_type]) + bytes(data)

FLAGS = ad(0x01, [0x06])

def uuid_bytes(text):
    return bytes.fromhex(text.replace("-", ""))

def ibeacon(uuid, major, minor, power, flags=True):
    body = struct.pack("<H", 0x004C) + bytes([0x02, 0x15]) + uuid_bytes(uuid) + struct.pack(">HHb", major, minor, power)
    return (FLAGS if flags else b"") + ad(0xFF, body)

def altbeacon(mfg, beacon_id, ref_rssi, reserved=0):
    body = struct.pack("<H", mfg) + bytes([0xBE, 0xAC]) + bytes.fromhex(beacon_id) + struct.pack("b", ref_rssi) + bytes([reserved])
    return FLAGS + ad(0xFF, body)

def eddystone(frame):
    return FLAGS + ad(0x03, [0xAA, 0xFE]) + ad(0x16, bytes([0xAA, 0xFE]) + frame)

def eddy_uid(tx, namespace, instance, rfu=True):
    return eddystone(bytes([0x00]) + struct.pack("b", tx) + bytes.fromhex(namespace) + bytes.fromhex(instance) + (b"\0\0" if rfu else b""))

def eddy_url(tx, scheme, encoded):
    return eddystone(bytes([0x10]) + struct.pack("b", tx) + bytes([scheme]) + bytes(encoded))

def eddy_tlm(battery_mv, temp_raw, adv_count, tenths, version=0):
    return eddystone(bytes([0x20, version]) + struct.pack(">HHII", battery_mv, temp_raw & 0xFFFF, adv_count, tenths))

# ---------------------------------------------------------------- HCI encoders

def addr_le(text):
    return bytes(reversed(bytes.fromhex(text.replace(":", ""))))

def legacy_report(evt_type, addr_type, addr, data, rssi):
    return bytes([evt_type, addr_type]) + addr_le(addr) + bytes([len(data)]) + bytes(data) + struct.pack("b", rssi)

def legacy_event(reports, num=None):
    """LE Meta / LE Advertising Report; reports one after another as controllers send them."""
    params = bytes([0x02, len(reports) if num is None else num]) + b"".join(reports)
    return bytes([0x3E, len(params) & 0xFF]) + params

def ext_report(evt_type, addr_type, addr, data, rssi, tx=127):
    return (struct.pack("<H", evt_type) + bytes([addr_type]) + addr_le(addr) + bytes([1, 0, 0xFF])
            + struct.pack("bb", tx, rssi) + struct.pack("<H", 0) + bytes([0]) + bytes(6) + bytes([len(data)]) + bytes(data))

def ext_event(reports):
    params = bytes([0x0D, len(reports)]) + b"".join(reports)
    return bytes([0x3E, len(params)]) + params

def command(ogf, ocf, params):
    return struct.pack("<HB", (ogf << 10) | ocf, len(params)) + bytes(params)

def command_complete(ogf, ocf, status=0):
    p = bytes([1]) + struct.pack("<H", (ogf << 10) | ocf) + bytes([status])
    return bytes([0x0E, len(p)]) + p

# ---------------------------------------------------------------- btsnoop writer

MONITOR_OPCODE = {"cmd": 2, "evt": 3, "acl_tx": 4, "acl_rx": 5, "new_index": 0, "note": 12}
H4_TYPE = {"cmd": 1, "evt": 4, "acl_tx": 2, "acl_rx": 2}

def btsnoop(datalink, records):
    """records: (offset_us, kind, payload). kind in cmd/evt/acl_tx/acl_rx/new_index/note, or
    h4raw (1002 only: the record's bytes as given, type byte included)."""
    out = bytearray(b"btsnoop\0" + struct.pack(">II", 1, datalink))
    for offset_us, kind, payload in records:
        if datalink == 1002 and kind == "h4raw":
            data, flags = payload, 3
        elif datalink == 1002:
            if kind not in H4_TYPE:
                continue
            data = bytes([H4_TYPE[kind]]) + payload
            flags = {"cmd": 2, "evt": 3, "acl_tx": 0, "acl_rx": 1}[kind]
        elif datalink == 1001:
            if kind not in H4_TYPE:
                continue
            data = payload
            flags = {"cmd": 2, "evt": 3, "acl_tx": 0, "acl_rx": 1}[kind]
        else:
            data = payload
            flags = (0 << 16) | MONITOR_OPCODE[kind]
        ts = BASE_US + offset_us + EPOCH_OFFSET
        out += struct.pack(">IIIIq", len(data), len(data), flags, 0, ts) + data
    return bytes(out)

# ---------------------------------------------------------------- expected JSON lines

def ts_text(offset_us):
    us = BASE_US + offset_us
    whole, frac = divmod(us, 1_000_000)
    return str(whole) if frac == 0 else f"{whole}.{frac:06d}".rstrip("0")

def num(x):
    """A number as Joule's JSON writer prints it: integral doubles without '.0'."""
    if x is None:
        return "null"
    if isinstance(x, float) and x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x)

def line(pairs):
    parts = []
    for key, value in pairs:
        if isinstance(value, str) and not value.startswith("\u0000raw"):
            text = json.dumps(value)
        elif isinstance(value, str):
            text = value[4:]
        else:
            text = num(value)
        parts.append(f"\"{key}\":{text}")
    return "{" + ",".join(parts) + "}"

def raw(text):
    return "\u0000raw" + text

def advert_line(offset_us, addr, addr_type, rssi, kind, fields):
    pairs = [("timestamp", raw(ts_text(offset_us))), ("address", addr), ("addressType", addr_type),
             ("rssi", None if rssi == 127 else rssi), ("kind", kind)] + fields
    return line(pairs)

# ---------------------------------------------------------------- the mixed capture

UUID_A = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
UUID_B = "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"
ALT_ID = "2f234454cf6d4a0fadf2f4911ba9ffa600010002"
NS = "edd1ebeac04e5defa017"
INST = "0badc0ffee01"

def mixed():
    """Every kind once or more, one advert per event, with its expected line (or None)."""
    items = []  # (offset_us, event bytes, expected lines)
    def add(offset_us, addr, addr_type, evt_type, data, rssi, expected_kind=None, fields=None):
        event = legacy_event([legacy_report(evt_type, addr_type, addr, data, rssi)])
        exp = []
        if expected_kind:
            exp.append(advert_line(offset_us, addr, "public" if addr_type == 0 else "random", rssi, expected_kind, fields))
        items.append((offset_us, event, exp))

    add(0, "C0:FF:EE:00:00:01", 0, 3, ibeacon(UUID_A, 1, 2, -59), -60, "ibeacon",
        [("uuid", UUID_A), ("major", 1), ("minor", 2), ("txPower", -59)])
    add(100_000, "C0:FF:EE:00:00:02", 1, 0, ibeacon(UUID_B, 65535, 0, -70, flags=False), -75, "ibeacon",
        [("uuid", UUID_B), ("major", 65535), ("minor", 0), ("txPower", -70)])
    add(200_000, "D0:00:00:00:0A:17", 1, 3, altbeacon(0x0118, ALT_ID, -65, 0x42), -71, "altbeacon",
        [("id", ALT_ID), ("manufacturer", 0x0118), ("txPower", -65)])
    add(300_000, "E0:00:00:00:00:01", 1, 3, eddy_uid(-20, NS, INST), -80, "eddystone-uid",
        [("namespace", NS), ("instance", INST), ("txPower", -20)])
    add(400_000, "E0:00:00:00:00:01", 1, 3, eddy_uid(-21, NS, INST, rfu=False), -81, "eddystone-uid",
        [("namespace", NS), ("instance", INST), ("txPower", -21)])
    # "https://www." + "example" + ".com/" + "beacon"
    add(500_000, "E0:00:00:00:00:02", 1, 3, eddy_url(-18, 1, b"example" + bytes([0x00]) + b"beacon"), -66, "eddystone-url",
        [("url", "https://www.example.com/beacon"), ("txPower", -18)])
    # "http://" + "go" + ".gov" and every other expansion code in order
    codes = bytes(range(0x00, 0x0E))
    expanded = ".com/.org/.edu/.net/.info/.biz/.gov/.com.org.edu.net.info.biz.gov"
    add(600_000, "E0:00:00:00:00:03", 1, 3, eddy_url(-10, 2, b"a" + codes), -50, "eddystone-url",
        [("url", "http://a" + expanded), ("txPower", -10)])
    add(700_000, "E0:00:00:00:00:01", 1, 3, eddy_tlm(3000, 0x1780, 1234, 98765), -82, "eddystone-tlm",
        [("batteryMv", 3000), ("temperatureC", 23.5), ("advCount", 1234), ("uptimeS", 9876.5)])
    # No battery sensor (0 mV) and no temperature sensor (0x8000): both unknown, never 0 or -128.
    add(800_000, "E0:00:00:00:00:04", 1, 3, eddy_tlm(0, 0x8000, 7, 10), -83, "eddystone-tlm",
        [("batteryMv", None), ("temperatureC", None), ("advCount", 7), ("uptimeS", 1)])
    # Negative temperature, 8.8 fixed point: 0xFF80 = -0.5 °C.
    add(900_000, "E0:00:00:00:00:05", 1, 3, eddy_tlm(2950, 0xFF80, 0, 5), -84, "eddystone-tlm",
        [("batteryMv", 2950), ("temperatureC", -0.5), ("advCount", 0), ("uptimeS", 0.5)])
    # RSSI 127 means unknown: rssi null.
    add(1_000_000, "C0:FF:EE:00:00:03", 0, 3, ibeacon(UUID_A, 7, 8, -59), 127, "ibeacon",
        [("uuid", UUID_A), ("major", 7), ("minor", 8), ("txPower", -59)])
    # A scan response carrying an iBeacon still counts.
    add(1_100_000, "C0:FF:EE:00:00:04", 0, 4, ibeacon(UUID_B, 300, 400, -56), -40, "ibeacon",
        [("uuid", UUID_B), ("major", 300), ("minor", 400), ("txPower", -56)])
    # Not beacons: Apple Nearby Info, a name only, an empty advert.
    add(1_200_000, "4A:11:22:33:44:55", 1, 0, FLAGS + ad(0xFF, bytes.fromhex("4c001005031c0d1a2b")), -70)
    add(1_300_000, "4A:11:22:33:44:56", 1, 0, FLAGS + ad(0x09, b"Thermo"), -70)
    add(1_400_000, "4A:11:22:33:44:57", 1, 0, b"", -70)
    return items

def write(name, data, expected_lines=None, suffix=".expected.ndjson"):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    if expected_lines is not None:
        base = name[: -len(".btsnoop")]
        with open(os.path.join(OUT, base + suffix), "w") as f:
            f.write("".join(l + "\n" for l in expected_lines))

def scan_setup_records():
    """The commands a host sends before adverts arrive (skipped by the decoder)."""
    return [
        (-2000, "cmd", command(0x08, 0x0B, [0x00, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00])),
        (-1900, "evt", command_complete(0x08, 0x0B)),
        (-1000, "cmd", command(0x08, 0x0C, [0x01, 0x00])),
        (-900, "evt", command_complete(0x08, 0x0C)),
    ]

def main():
    os.makedirs(OUT, exist_ok=True)
    items = mixed()
    records = scan_setup_records() + [(t, "evt", e) for t, e, _ in items]
    expected = [l for _, _, exp in items for l in exp]
    write("all-kinds-h4.btsnoop", btsnoop(1002, records), expected)
    write("all-kinds-raw1001.btsnoop", btsnoop(1001, records + [(1_500_000, "acl_rx", bytes.fromhex("0120050001000400"))]), expected)
    monitor_records = [(-5000, "new_index", bytes(16)), (-4000, "note", b"Bluetooth subsystem version 2.22\0")] + records
    write("all-kinds-monitor2001.btsnoop", btsnoop(2001, monitor_records), expected)

    # A capture cut in the middle of its 9th advert record: the first 8 adverts stand.
    full = btsnoop(1002, records)
    cut_after = 4 + 8  # setup records + adverts kept
    pos = 16
    for _ in range(cut_after):
        length = struct.unpack(">I", full[pos + 4 : pos + 8])[0]
        pos += 24 + length
    write("truncated-record-h4.btsnoop", full[: pos + 24 + 5], expected[:8])
    write("truncated-header-h4.btsnoop", full[: pos + 10], expected[:8])

    write("multi-report-h4.btsnoop", btsnoop(1002, multi_report_records()), multi_report_expected())
    ext_records, ext_expected = extended()
    write("extended-h4.btsnoop", btsnoop(1002, ext_records), ext_expected)
    bad_records, bad_expected = malformed()
    write("malformed-h4.btsnoop", btsnoop(1002, bad_records), bad_expected)

    # Files that cannot be replayed at all.
    write("bad-magic.btsnoop", b"btsnoep\0" + struct.pack(">II", 1, 1002))
    write("unknown-datalink.btsnoop", b"btsnoop\0" + struct.pack(">II", 1, 1003))
    write("short-header.btsnoop", b"btsnoop\0\0\0")

    region()

# ---------------------------------------------------------------- several reports per event

def multi_report_records():
    reports = [
        legacy_report(3, 0, "C0:FF:EE:00:01:01", ibeacon(UUID_A, 10, 1, -59), -61),
        legacy_report(0, 1, "4A:00:00:00:00:01", FLAGS + ad(0x09, b"Lamp"), -90),
        legacy_report(3, 1, "D0:00:00:00:0A:18", altbeacon(0x004C, ALT_ID, -60), -62),
        legacy_report(3, 1, "E0:00:00:00:00:09", eddy_url(-12, 3, b"joule.dev"), -63),
    ]
    return [(0, "evt", legacy_event(reports)), (50_000, "evt", legacy_event(reports[:2]))]

def multi_report_expected():
    a = [("uuid", UUID_A), ("major", 10), ("minor", 1), ("txPower", -59)]
    alt = [("id", ALT_ID), ("manufacturer", 0x004C), ("txPower", -60)]
    url = [("url", "https://joule.dev"), ("txPower", -12)]
    return [
        advert_line(0, "C0:FF:EE:00:01:01", "public", -61, "ibeacon", a),
        advert_line(0, "D0:00:00:00:0A:18", "random", -62, "altbeacon", alt),
        advert_line(0, "E0:00:00:00:00:09", "random", -63, "eddystone-url", url),
        advert_line(50_000, "C0:FF:EE:00:01:01", "public", -61, "ibeacon", a),
    ]

# ---------------------------------------------------------------- extended reports

def extended():
    r1 = ext_report(0x0010, 0, "C0:FF:EE:00:02:01", ibeacon(UUID_B, 2, 3, -65, flags=False), -70, tx=-8)
    r2 = ext_report(0x0000, 1, "E0:00:00:00:02:02", eddy_uid(-30, NS, INST), -71)
    r3 = ext_report(0x0001, 3, "D0:00:00:00:02:03", altbeacon(0x0118, ALT_ID, -66), 127)
    r4 = ext_report(0x0000, 1, "4A:00:00:00:02:04", FLAGS + ad(0x09, b"x" * 40), -72)  # long non-beacon
    r5 = ext_report(0x0000, 2, "C0:FF:EE:00:02:05", ibeacon(UUID_A, 9, 9, -59), -73)
    records = [(0, "evt", ext_event([r1, r2, r3])), (10_000, "evt", ext_event([r4, r5]))]
    expected = [
        advert_line(0, "C0:FF:EE:00:02:01", "public", -70, "ibeacon", [("uuid", UUID_B), ("major", 2), ("minor", 3), ("txPower", -65)]),
        advert_line(0, "E0:00:00:00:02:02", "random", -71, "eddystone-uid", [("namespace", NS), ("instance", INST), ("txPower", -30)]),
        advert_line(0, "D0:00:00:00:02:03", "random", 127, "altbeacon", [("id", ALT_ID), ("manufacturer", 0x0118), ("txPower", -66)]),
        advert_line(10_000, "C0:FF:EE:00:02:05", "public", -73, "ibeacon", [("uuid", UUID_A), ("major", 9), ("minor", 9), ("txPower", -59)]),
    ]
    return records, expected

# ---------------------------------------------------------------- malformed input

def malformed():
    good = legacy_report(3, 0, "C0:FF:EE:00:03:01", ibeacon(UUID_A, 3, 1, -59), -60)
    good_line = lambda t: advert_line(t, "C0:FF:EE:00:03:01", "public", -60, "ibeacon",
                                      [("uuid", UUID_A), ("major", 3), ("minor", 1), ("txPower", -59)])
    # An AD length running past the report: that report's parse ends, the next report stands.
    bad_ad = legacy_report(3, 1, "4A:00:00:00:03:02", bytes([0x1E, 0xFF, 0x4C, 0x00]), -60)
    # An iBeacon whose AD structure is complete but whose own length byte is wrong (0x14).
    bad_len = FLAGS + ad(0xFF, struct.pack("<H", 0x004C) + bytes([0x02, 0x14]) + uuid_bytes(UUID_A) + bytes([0, 1, 0, 1, 0xC5]))
    wrong_ibeacon = legacy_report(3, 1, "4A:00:00:00:03:03", bad_len, -60)
    # A Flags AD, then an AD of length 0 (end of significant data), then garbage after it.
    padded = legacy_report(3, 1, "4A:00:00:00:03:04", FLAGS + bytes([0, 0xFF, 0xFF]), -60)
    # A legacy report claiming 40 data bytes: invalid (max 31), skipped as Linux does.
    too_long = legacy_report(3, 1, "4A:00:00:00:03:05", bytes([0x27, 0x09]) + b"y" * 38, -60)
    # Eddystone-URL with a reserved scheme, with a control byte, and an encrypted TLM.
    bad_scheme = legacy_report(3, 1, "4A:00:00:00:03:06", eddy_url(-10, 9, b"x"), -60)
    bad_char = legacy_report(3, 1, "4A:00:00:00:03:07", eddy_url(-10, 0, b"a\x1fb"), -60)
    enc_tlm = legacy_report(3, 1, "4A:00:00:00:03:08", eddy_tlm(1, 2, 3, 4, version=1), -60)
    short_uid = legacy_report(3, 1, "4A:00:00:00:03:09", eddystone(bytes([0x00, 0xEC]) + bytes(12)), -60)

    records = [
        (0, "evt", legacy_event([bad_ad, good])),
        (10_000, "evt", legacy_event([wrong_ibeacon, padded, good])),
        (20_000, "evt", legacy_event([too_long, good])),
        (30_000, "evt", legacy_event([bad_scheme, bad_char, enc_tlm, short_uid, good])),
        # num_reports claims 5, one is present: the complete report stands.
        (40_000, "evt", legacy_event([good], num=5)),
        # The event's length byte claims 20 bytes more than the record holds.
        (50_000, "evt", bytes([0x3E, len(legacy_event([good])) - 2 + 20]) + legacy_event([good])[2:]),
        # Cut in the middle of the second report's data.
        (60_000, "evt", legacy_event([good, good])[:-20]),
        # An extended report cut inside its 24-byte header, after a complete one.
        (70_000, "evt", ext_event([ext_report(0, 0, "C0:FF:EE:00:03:01", ibeacon(UUID_A, 3, 1, -59), -60), bytes(10)])),
        # Events too short to hold anything.
        (80_000, "evt", bytes([0x3E])),
        (81_000, "evt", bytes([0x3E, 0x00])),
        (82_000, "evt", bytes([0x3E, 0x01, 0x02])),
        # An empty H4 record and one of an unknown packet type are skipped.
        (85_000, "h4raw", b""),
        (86_000, "h4raw", bytes([0x09, 0x3E, 0x01, 0x02])),
        (90_000, "evt", legacy_event([good])),
    ]
    expected = [good_line(t) for t in (0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 90_000)]
    return records, expected

# ---------------------------------------------------------------- regions: monitor and range

REGION_ADDR = "C0:FF:EE:00:04:01"

def region_rssi(i):
    return [-60, -64, -58, -61, -70, -59, -62, -63, -60, -61, -66, -59][i % 12]

def region():
    """office = UUID_A (any major/minor), desk = UUID_A:1:2. One beacon (UUID_A 1/2) seen
    every second from t=0 to t=5, silent until a filler advert at t=20, seen again from
    t=30 to t=32, and a last filler at t=45."""
    records = []
    sightings = [0, 1, 2, 3, 4, 5, 30, 31, 32]
    for i, s in enumerate(sightings):
        rep = legacy_report(3, 0, REGION_ADDR, ibeacon(UUID_A, 1, 2, -59), region_rssi(i))
        records.append((s * 1_000_000, "evt", legacy_event([rep])))
    # A beacon of another UUID (in no region) drives the clock forward.
    for s in (20, 45):
        rep = legacy_report(3, 0, "C0:FF:EE:00:04:09", ibeacon(UUID_B, 1, 1, -59), -70)
        records.append((s * 1_000_000, "evt", legacy_event([rep])))
    records.sort(key=lambda r: r[0])
    write("region-h4.btsnoop", btsnoop(1002, records))

    # Monitor, default --exit-timeout 10: enter at the first sighting, exit 10 s after the last.
    ev = []
    for t, kind in ((0, "enter"), (15, "exit"), (30, "enter"), (42, "exit")):
        for name, major, minor in (("office", None, None), ("desk", 1, 2)):
            ev.append(line([("timestamp", raw(ts_text(t * 1_000_000))), ("event", kind), ("region", name),
                            ("uuid", UUID_A), ("major", major), ("minor", minor)]))
    write_text("region-h4.monitor.expected.ndjson", ev)

    # Range, --interval 5: at t = 5, 10, ... 45 (the capture's last instant) the RSSI filter
    # holds the sightings of the last 20 s.
    samples = [(s, region_rssi(i)) for i, s in enumerate(sightings)]
    out = []
    for tick in range(5, 46, 5):
        window = sorted(r for s, r in samples if tick - 20 < s <= tick)
        if not window:
            continue
        k = len(window) // 10
        kept = window[k: len(window) - k]
        rssi = sum(kept) / len(kept)
        accuracy = distance(rssi, -59)
        for name in ("office", "desk"):
            out.append(line([("timestamp", raw(ts_text(tick * 1_000_000))), ("region", name), ("uuid", UUID_A),
                             ("major", 1), ("minor", 2), ("rssi", round2(rssi)), ("accuracyM", round2(accuracy)),
                             ("proximity", proximity(accuracy))]))
    write_text("region-h4.range.expected.ndjson", out)

    # range --once (interval 1 s): done at the first tick where the beacon's last three
    # distances lie within 10 % of the largest; the final result is printed, once.
    recent = []
    for tick in range(1, 46):
        window = sorted(r for s, r in samples if tick - 20 < s <= tick)
        if not window:
            recent = []
            continue
        k = len(window) // 10
        kept = window[k: len(window) - k]
        rssi = sum(kept) / len(kept)
        accuracy = distance(rssi, -59)
        recent = (recent + [accuracy])[-3:]
        if len(recent) == 3 and max(recent) - min(recent) <= 0.1 * max(max(recent), 0.1):
            once = [line([("timestamp", raw(ts_text(tick * 1_000_000))), ("region", name), ("uuid", UUID_A),
                          ("major", 1), ("minor", 2), ("rssi", round2(rssi)), ("accuracyM", round2(accuracy)),
                          ("proximity", proximity(accuracy))]) for name in ("office", "desk")]
            write_text("region-h4.range-once.expected.ndjson", once)
            break

def distance(rssi, tx):
    r = rssi / tx
    return r ** 10 if r < 1 else 0.42093 * r ** 6.9476 + 0.54992

def round2(x):
    return math.floor(x * 100 + 0.5) / 100 if x >= 0 else -math.floor(-x * 100 + 0.5) / 100

def proximity(d):
    return "immediate" if d < 0.5 else "near" if d < 3 else "far"

def write_text(name, lines):
    with open(os.path.join(OUT, name), "w") as f:
        f.write("".join(l + "\n" for l in lines))

def large(path, count):
    """A big capture of mixed kinds for throughput benchmarks: `count` beacon adverts, three
    legacy reports per event (with a non-beacon between), plus some extended events."""
    kinds = [item[1] for item in mixed() if item[2]]
    filler = legacy_report(0, 1, "4A:11:22:33:44:55", FLAGS + ad(0xFF, bytes.fromhex("4c001005031c0d1a2b")), -70)
    with open(path, "wb") as f:
        f.write(b"btsnoop\0" + struct.pack(">II", 1, 1002))
        written = 0
        t = 0
        while written < count:
            reports = []
            for j in range(min(2, count - written)):
                params = kinds[(written + j) % len(kinds)][3:]  # one report: skip 3E len 02
                reports.append(params[1:])  # skip num_reports
            event = legacy_event(reports[:1] + [filler] + reports[1:])
            data = bytes([4]) + event
            f.write(struct.pack(">IIIIq", len(data), len(data), 3, 0, BASE_US + t + EPOCH_OFFSET) + data)
            written += len(reports)
            t += 1000

if __name__ == "__main__":
    import sys
    if len(sys.argv) == 4 and sys.argv[1] == "--large":
        large(sys.argv[2], int(sys.argv[3]))
    else:
        main()
