#!/usr/bin/env python3
"""Generates hw-fixtures/history/laptop-day: a day of a laptop as joule daemon records it.

The state directory `joule history --state-dir` reads:
  transfers.db   the history's tables (history_samples, history_temperatures, history_entries,
                 history_schema_version), created by running the migration SQL that
                 Sources/JouleHistory/HistoryStore.swift holds, so the schema is joule's own
  reports/       one EXC_RESOURCE CPU_FATAL report (JSON sidecar and text), as cpu-monitor writes them

The day (Tuesday 10 March 2026, UTC), simulated minute by minute with a fixed seed:
  00:00-00:25  on AC, full, idle; the daemon stops at 00:25 (shutdown): no data until 07:02
  07:02        boot (start row); 07:40 unplugged: discharging
  08:30-09:40  a build: 22-34 W, x86_pkg_temp up to ~95 degC; thermal fair 08:41, serious 08:56,
               fair 09:31, nominal 09:43; cpu-monitor kills cc1plus at 09:22 (CPU_FATAL report)
  10:30-11:00  the iwlwifi sensor fails (its temperature is null: a gap in that line only)
  12:10-12:55  suspended over lunch: no data
  ~15:00       20 %: Low Power Mode on (auto, battery-low); power drops
  16:20        plugged in: charging; Low Power Mode stays on until 80 % (off, "charged")
  +6 min       a discretionary download that waited for AC and Low Power Mode off completes
  ~18:10       full; 21:00-21:30 Low Power Mode on by hand (manual-on, then manual-off)

Rows come every minute and on each change, as DaemonHistory writes them; unknown is NULL.
Usage: scripts/make-history-fixture.py [OUTPUT_DIR]   (default: hw-fixtures/history/laptop-day)
Never edits the expected files (expected-*.json, expected-*.txt): they are checked by hand.
"""
import json
import os
import random
import re
import shutil
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DAY = 1773100800  # 2026-03-10T00:00:00Z, a Tuesday
FULL_WH = 96.0  # a ThinkPad T480 with its internal and external batteries


def migration_sql():
    """The history's first migration, read from the Swift source so the fixture uses joule's schema."""
    source = open(os.path.join(REPO, "Sources/JouleHistory/HistoryStore.swift")).read()
    start = source.index("SQLiteSchema(versionTable: \"history_schema_version\"")
    block = re.search(r'"""\n(.*?)\n( *)"""', source[start:], re.S)
    # Swift strips the closing delimiter's indentation from every line of the literal.
    indent = len(block.group(2))
    return "\n".join(line[indent:] for line in block.group(1).split("\n"))


class Day:
    def __init__(self):
        self.rng = random.Random(15)
        self.rows = []
        self.entries = []
        self.percentage = 100.0
        self.state = "full"
        self.line = True
        self.lpm = False
        self.lpm_source = "auto"
        self.lpm_reason = None
        self.thermal = "nominal"
        self.pkg = 41.0
        self.acpi = 37.0
        self.wifi = 31.0
        self.wifi_failing = False

    def row(self, minute, trigger, power, rate):
        noise = self.rng.uniform(-0.4, 0.4)
        self.rows.append({
            "time": DAY + minute * 60 + (0 if trigger == "minute" else 17),
            "trigger": trigger,
            "percentage": round(self.percentage, 2),
            "charge_state": self.state,
            "energy_rate_w": None if rate is None else round(rate + noise * 0.5, 3) if rate > 0 else rate,
            "power_w": round(power + noise, 3),
            "power_source": "rapl:psys",
            "line_online": 1 if self.line else 0,
            "low_power_mode": 1 if self.lpm else 0,
            "low_power_source": self.lpm_source,
            "low_power_reason": self.lpm_reason,
            "thermal_state": self.thermal,
            "temperatures": [
                ("thermal_zone0", "acpitz", round(self.acpi, 1)),
                ("thermal_zone1", "x86_pkg_temp", round(self.pkg, 1)),
                ("thermal_zone2", "iwlwifi_1", None if self.wifi_failing else round(self.wifi, 1)),
            ],
        })

    def settle(self, target_pkg, target_acpi):
        self.pkg += (target_pkg - self.pkg) * 0.25 + self.rng.uniform(-0.8, 0.8)
        self.acpi += (target_acpi - self.acpi) * 0.08 + self.rng.uniform(-0.2, 0.2)
        self.wifi += (31.5 + (self.acpi - 37) * 0.4 - self.wifi) * 0.1 + self.rng.uniform(-0.2, 0.2)


def rate(day, power):
    """The batteries' energy rate as the kernel reports it: what they give or take."""
    if day.state == "discharging":
        return power * 1.05
    if day.state == "charging":
        return 30.0 if day.percentage < 80 else 30.0 * (100 - day.percentage) / 20 + 2
    return 0.0 if day.state == "full" else None


def simulate():
    day = Day()
    awake = lambda m: m <= 25 or (7 * 60 + 2 <= m < 12 * 60 + 10) or m >= 12 * 60 + 55
    for minute in range(0, 24 * 60):
        if not awake(minute):
            continue
        building = 8 * 60 + 30 <= minute < 9 * 60 + 22
        after_kill = 9 * 60 + 22 <= minute < 9 * 60 + 40
        # What the machine draws this minute.
        if building:
            power = 26 + 8 * day.rng.random()
        elif after_kill:
            power = 14 + 3 * day.rng.random()
        elif day.lpm:
            power = 5.2 + day.rng.random()
        elif day.line and day.state == "full":
            power = 5.5 + day.rng.random() * 1.5
        else:
            power = 8 + 3 * day.rng.random()
        day.settle(92 if building else 60 if after_kill else 45, 70 if building else 48 if after_kill else 38)
        day.wifi_failing = 10 * 60 + 30 <= minute < 11 * 60
        if minute == 12 * 60 + 55:
            day.percentage -= 0.8  # what 45 minutes of suspend cost
        # The minute's row comes first, with the state before this minute's events.
        day.row(minute, "start" if minute == 7 * 60 + 2 else "minute", power, rate(day, power))
        if minute == 25:
            day.row(minute, "stop", power, rate(day, power))
            continue
        # Events of the day, each a row 17 s into the minute.
        changes = []
        if minute == 7 * 60 + 40:
            day.line, day.state = False, "discharging"
            changes.append("line")
        if minute == 16 * 60 + 20:
            day.line, day.state = True, "charging"
            changes.append("line")
        if minute == 21 * 60:
            day.lpm, day.lpm_source, day.lpm_reason = True, "manual", "manual-on"
            changes.append("lowPowerMode")
        if minute == 21 * 60 + 30:
            day.lpm, day.lpm_source, day.lpm_reason = False, "manual", "manual-off"
            changes.append("lowPowerMode")
        thermal = day.thermal
        if building and minute >= 8 * 60 + 41:
            thermal = "serious" if minute >= 8 * 60 + 56 else "fair"
        if minute >= 9 * 60 + 31:
            thermal = "fair" if minute < 9 * 60 + 43 else "nominal"
        if thermal != day.thermal:
            day.thermal = thermal
            changes.append("thermalState")
        # The battery over the minute.
        if day.state == "discharging":
            day.percentage -= rate(day, power) / FULL_WH * 100 / 60
            if not day.lpm and day.percentage <= 20:
                day.lpm, day.lpm_source, day.lpm_reason = True, "auto", "battery-low"
                changes.append("lowPowerMode")
        elif day.state == "charging":
            day.percentage = min(100.0, day.percentage + rate(day, power) / FULL_WH * 100 / 60)
            if day.lpm and day.lpm_source == "auto" and day.percentage >= 80:
                day.lpm, day.lpm_reason = False, "charged"
                changes.append("lowPowerMode")
                day.transfer_at = minute + 6
            if day.percentage >= 99.95:
                day.percentage, day.state = 100.0, "full"
                changes.append("chargeState")
        if changes:
            day.row(minute, changes[0], power, rate(day, power))
        if getattr(day, "transfer_at", None) == minute:
            day.entries.append({
                "time": DAY + minute * 60 + 42, "kind": "transfer", "id": "3f0c8a52-9d41-4a7e-b7f1-2c9e5d6a8b10",
                "subtype": "completed", "subject": "/home/ana/Downloads/debian-12.9.0-amd64-netinst.iso",
                "detail": None, "pid": None, "bytes": 658505728, "owner_uid": 1000,
            })
    return day


def report(directory):
    """The CPU_FATAL report cpu-monitor leaves when it kills the build's cc1plus at 09:22."""
    stamp = DAY + 9 * 3600 + 22 * 60 + 5.25
    incident = "6C1E2F3A-0B5D-4E2A-9C7F-1D2E3F4A5B6C"
    sidecar = {
        "incidentIdentifier": incident, "timestamp": "2026-03-10T09:22:05.250Z", "processName": "cc1plus",
        "pid": 48213, "processStartTimeTicks": 3376512, "path": "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus",
        "commandLine": ["/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus", "-quiet", "-O2", "render.cpp"],
        "parentName": "make", "parentPid": 48190, "uid": 1000, "userName": "ana", "cgroup": "/user.slice/user-1000.slice/session-2.scope",
        "osVersion": "Debian GNU/Linux 12 (bookworm) (Linux 6.1.0-31-amd64 x86_64)", "hardwareModel": "20L5CTO1WW",
        "exceptionType": "EXC_RESOURCE", "exceptionSubtype": "CPU_FATAL",
        "exceptionMessage": "(Limit 80%) Observed 99% over 60 seconds", "exceptionNote": None,
        "cpuSummary": "59 seconds cpu time over 60 seconds (99% cpu average), exceeding limit of 80% cpu over 60 seconds",
        "fatal": True, "limitPercent": 80, "windowSeconds": 60, "cpuSeconds": 59.4, "observedSeconds": 60.012,
        "observedPercent": 99, "action": "kill", "dryRun": False, "actionTaken": "killed with SIGKILL through a pidfd",
        "terminationReason": "CPU monitor: 59 seconds cpu time over 60 seconds (EXC_RESOURCE CPU_FATAL, SIGKILL)",
        "threads": [{"tid": 48213, "name": "cc1plus", "state": "running", "cpuSeconds": 59.4, "wchan": None,
                     "kernelStack": [], "heaviest": True}],
    }
    text = "\n".join([
        "Incident Identifier: " + incident,
        "Process:             cc1plus [48213]",
        "Path:                /usr/lib/gcc/x86_64-linux-gnu/12/cc1plus",
        "Command Line:        /usr/lib/gcc/x86_64-linux-gnu/12/cc1plus -quiet -O2 render.cpp",
        "Parent:              make [48190]",
        "User:                ana (1000)",
        "Cgroup:              /user.slice/user-1000.slice/session-2.scope",
        "Date/Time:           2026-03-10 09:22:05.250 +0000",
        "OS Version:          Debian GNU/Linux 12 (bookworm) (Linux 6.1.0-31-amd64 x86_64)",
        "Hardware Model:      20L5CTO1WW",
        "",
        "Exception Type:      EXC_RESOURCE",
        "Exception Subtype:   CPU_FATAL",
        "Exception Message:   (Limit 80%) Observed 99% over 60 seconds",
        "Termination Reason:  CPU monitor: 59 seconds cpu time over 60 seconds (EXC_RESOURCE CPU_FATAL, SIGKILL)",
        "Action Taken:        killed with SIGKILL through a pidfd",
        "",
        "CPU:                 " + sidecar["cpuSummary"],
        "CPU Limit:           80% of one core (48 seconds of cpu time)",
        "Limit Duration:      60 seconds",
        "CPU Used:            59.40 seconds",
        "CPU Duration:        60.01 seconds",
        "",
        "Threads (cpu time within the window):",
        "Thread 0 Heaviest:: cc1plus  tid 48213  running  59.40 s cpu  wchan -",
        "    (no kernel frames: running in user space)",
        "",
    ])
    stem = os.path.join(directory, "cc1plus-2026-03-10-092205-6C1E2F3A")
    assert abs(stamp - (DAY + 9 * 3600 + 22 * 60 + 5.25)) < 1e-6
    with open(stem + ".txt", "w") as f:
        f.write(text)
    with open(stem + ".json", "w") as f:
        f.write(json.dumps(sidecar, separators=(",", ":")) + "\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "hw-fixtures/history/laptop-day")
    os.makedirs(out, exist_ok=True)
    for name in ("transfers.db", "transfers.db-wal", "transfers.db-shm", "reports"):
        path = os.path.join(out, name)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.remove(path)
    day = simulate()
    db = sqlite3.connect(os.path.join(out, "transfers.db"))
    db.executescript(migration_sql())
    db.execute("CREATE TABLE history_schema_version (version INTEGER NOT NULL)")
    db.execute("INSERT INTO history_schema_version (version) VALUES (1)")
    columns = ["time", "trigger", "percentage", "charge_state", "energy_rate_w", "power_w", "power_source",
               "line_online", "low_power_mode", "low_power_source", "low_power_reason", "thermal_state"]
    for row in day.rows:
        cursor = db.execute(
            "INSERT INTO history_samples (%s) VALUES (%s)" % (", ".join(columns), ", ".join("?" * len(columns))),
            [row[c] for c in columns])
        for position, (sensor, label, celsius) in enumerate(row["temperatures"]):
            db.execute("INSERT INTO history_temperatures (sample_id, position, sensor, label, celsius) VALUES (?, ?, ?, ?, ?)",
                       (cursor.lastrowid, position, sensor, label, celsius))
    for entry in day.entries:
        keys = ["time", "kind", "id", "subtype", "subject", "detail", "pid", "bytes", "owner_uid"]
        db.execute("INSERT INTO history_entries (%s) VALUES (%s)" % (", ".join(keys), ", ".join("?" * len(keys))),
                   [entry[k] for k in keys])
    db.commit()
    db.execute("VACUUM")
    db.close()
    os.makedirs(os.path.join(out, "reports"))
    report(os.path.join(out, "reports"))
    print("%s: %d rows, %d stored markers, 1 report" % (out, len(day.rows), len(day.entries)))


if __name__ == "__main__":
    main()
