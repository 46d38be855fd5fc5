#!/usr/bin/env python3
"""Minimal Python decoder of beacon adverts in a btsnoop capture (H4, datalink 1002), the
peer for `make bench`: legacy (0x02) and extended (0x0D) LE advertising reports, iBeacon,
AltBeacon and Eddystone UID/URL/TLM, one JSON line per advert on stdout. Written plainly,
as a user would; it prints the adverts count on stderr."""
import json, struct, sys

EPOCH_US = 0x00DCDDB30F2F8000
SCHEMES = ["http://www.", "https://www.", "http://", "https://"]
EXPANSIONS = [".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
              ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov"]

def addr(b):
    return ":".join("%02X" % x for x in reversed(b))

def frame(data):
    i = 0
    while i < len(data):
        n = data[i]
        if n == 0 or i + 1 + n > len(data):
            return None
        t, body = data[i + 1], data[i + 2:i + 1 + n]
        i += 1 + n
        if t == 0xFF and len(body) >= 25 and body[0:4] == b"\x4c\x00\x02\x15":
            u = body[4:20].hex().upper()
            return {"kind": "ibeacon", "uuid": "%s-%s-%s-%s-%s" % (u[:8], u[8:12], u[12:16], u[16:20], u[20:]),
                    "major": struct.unpack(">H", body[20:22])[0], "minor": struct.unpack(">H", body[22:24])[0],
                    "txPower": struct.unpack("b", body[24:25])[0]}
        if t == 0xFF and len(body) >= 26 and body[2:4] == b"\xbe\xac":
            return {"kind": "altbeacon", "id": body[4:24].hex(), "manufacturer": struct.unpack("<H", body[0:2])[0],
                    "txPower": struct.unpack("b", body[24:25])[0]}
        if t == 0x16 and len(body) >= 3 and body[0:2] == b"\xaa\xfe":
            f = body[2:]
            if f[0] == 0x00 and len(f) >= 18:
                return {"kind": "eddystone-uid", "namespace": f[2:12].hex(), "instance": f[12:18].hex(),
                        "txPower": struct.unpack("b", f[1:2])[0]}
            if f[0] == 0x10 and len(f) >= 3 and f[2] < 4:
                url = SCHEMES[f[2]] + "".join(EXPANSIONS[c] if c < 14 else chr(c) for c in f[3:])
                return {"kind": "eddystone-url", "url": url, "txPower": struct.unpack("b", f[1:2])[0]}
            if f[0] == 0x20 and len(f) >= 14 and f[1] == 0:
                mv, temp, count, up = struct.unpack(">HhII", f[2:14])
                return {"kind": "eddystone-tlm", "batteryMv": mv or None,
                        "temperatureC": None if temp == -0x8000 else temp / 256, "advCount": count, "uptimeS": up / 10}
    return None

def emit(out, ts, atype, a, rssi, data):
    f = frame(data)
    if f is None:
        return 0
    line = {"timestamp": ts, "address": addr(a), "addressType": "public" if atype in (0, 2) else "random",
            "rssi": None if rssi == 127 else rssi}
    line.update(f)
    out.write(json.dumps(line, separators=(",", ":")) + "\n")
    return 1

def main(path):
    out = sys.stdout
    count = 0
    with open(path, "rb") as fh:
        blob = fh.read()
    if blob[:8] != b"btsnoop\0" or struct.unpack(">I", blob[12:16])[0] != 1002:
        sys.exit("not an H4 btsnoop capture")
    pos = 16
    while pos + 24 <= len(blob):
        _, incl, _, _, t = struct.unpack(">IIIIq", blob[pos:pos + 24])
        pkt = blob[pos + 24:pos + 24 + incl]
        pos += 24 + incl
        if len(pkt) < 4 or pkt[0] != 4 or pkt[1] != 0x3E:
            continue
        ts = (t - EPOCH_US) / 1e6
        sub, p = pkt[3], pkt[4:]
        if sub == 0x02:
            n, i = p[0], 1
            for _ in range(n):
                if i + 9 > len(p):
                    break
                atype, a, ln = p[i + 1], p[i + 2:i + 8], p[i + 8]
                data = p[i + 9:i + 9 + ln]
                if i + 10 + ln > len(p):
                    break
                rssi = struct.unpack("b", p[i + 9 + ln:i + 10 + ln])[0]
                count += emit(out, ts, atype, a, rssi, data)
                i += 10 + ln
        elif sub == 0x0D:
            n, i = p[0], 1
            for _ in range(n):
                if i + 24 > len(p):
                    break
                atype, a, rssi, ln = p[i + 2], p[i + 3:i + 9], struct.unpack("b", p[i + 13:i + 14])[0], p[i + 23]
                count += emit(out, ts, atype, a, rssi, p[i + 24:i + 24 + ln])
                i += 24 + ln
    sys.stderr.write("%d\n" % count)

if __name__ == "__main__":
    main(sys.argv[1])
