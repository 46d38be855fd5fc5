import Foundation
import JouleWire
import JouleHardware
import JouleEnergy
@testable import JouleDaemon
import JouleTesting
import Testing

/// The sleep account against python3-dbusmock's logind on a private bus: the delay lock is
/// held while awake, released at the note before sleep and taken again after resume; the
/// record has the energies, the drain, the wake reason from the wakeup sources that moved
/// and the `mem_sleep` mode. The clock is injected: the test's sleep lasts an hour.
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
struct DaemonSleepTests {
    /// `/sys/power` and two wakeup sources under a scratch root.
    static func tree() throws -> ScratchDirectory {
        let scratch = try ScratchDirectory(prefix: "joule-daemon-sleep")
        let files = [
            "sys/power/mem_sleep": "s2idle [deep]\n",
            "sys/power/suspend_stats/success": "4\n",
            "sys/power/suspend_stats/fail": "0\n",
            "sys/class/wakeup/wakeup0/name": "ACPI LID0\n",
            "sys/class/wakeup/wakeup0/event_count": "3\n",
            "sys/class/wakeup/wakeup0/wakeup_count": "1\n",
            "sys/class/wakeup/wakeup1/name": "PNP0C0D:00\n",
            "sys/class/wakeup/wakeup1/event_count": "9\n",
            "sys/class/wakeup/wakeup1/wakeup_count": "0\n",
        ]
        for (path, text) in files { try Self.write(text, scratch.path + "/" + path) }
        return scratch
    }

    static func write(_ text: String, _ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// logind's inhibitors as the mock lists them: (what, who, why, mode).
    static func inhibitors(_ logind: DBusMock) async throws -> [[String]] {
        let reply = try await logind.call("ListInhibitors", interface: "org.freedesktop.login1.Manager")
        guard case .array(_, let rows)? = reply.first else { return [] }
        return rows.compactMap { row in
            guard case .structure(let fields) = row else { return nil }
            return fields.prefix(4).compactMap(\.stringValue)
        }
    }

    @Test func aSleepIsNotedAroundTheLockAndAccountedWithItsWakeReason() async throws {
        let scratch = try Self.tree()
        try await PrivateBusDaemon.with { daemon in
            let logind = try await DBusMock(.logind, address: daemon.address)
            defer { logind.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let clock = Locked(1_800_000_000.0)
            let battery = Locked(CompositeBattery(
                percentage: 80, energyWh: 40, energyFullWh: 50, energyRateW: nil, state: .discharging, timeToEmptyS: nil, timeToFullS: nil))
            let records = Locked<[SleepRecord]>([])
            let lines = Locked<[String]>([])
            let sleep = DaemonSleep(
                bus: bus, root: FileRoot(scratch.path), battery: { battery.withLock { $0 } },
                accounted: { record in records.withLock { $0.append(record) } }, now: { clock.withLock { $0 } },
                log: { line in lines.withLock { $0.append(line) } })

            await sleep.takeLock()
            #expect(await sleep.holdsLock)
            #expect(try await Self.inhibitors(logind) == [["sleep", "joule", "note the battery's energy before sleep", "delay"]])

            await sleep.preparing()
            #expect(await sleep.holdsLock == false)
            // logind sees the descriptor closed: the lock is gone, so the machine may sleep.
            #expect(try await eventually { try await Self.inhibitors(logind).isEmpty })
            #expect(lines.withLock { $0 }.last == "going to sleep (deep): battery 40 Wh, 80 %; releasing the delay lock")

            // An hour asleep: 2 Wh (4 % of 50 Wh) gone, and the lid woke the machine.
            clock.withLock { $0 += 3600 }
            battery.withLock { $0.energyWh = 38; $0.percentage = 76 }
            try Self.write("2\n", scratch.path + "/sys/class/wakeup/wakeup0/wakeup_count")
            try Self.write("4\n", scratch.path + "/sys/class/wakeup/wakeup0/event_count")
            try Self.write("12\n", scratch.path + "/sys/class/wakeup/wakeup1/event_count")
            await sleep.resumed()

            let record = try #require(records.withLock { $0 }.first)
            #expect(record.start == 1_800_000_000 && record.end == 1_800_003_600)
            #expect(record.energyBeforeWh == 40 && record.energyAfterWh == 38)
            #expect(record.drainPercentPerHour == 4 && record.drainW == 2)
            #expect(record.wakeReason == "ACPI LID0 (wakeup_count +1)")
            #expect(record.mode == "deep")
            #expect(record.isFlagged)
            #expect(lines.withLock { $0 }.contains("slept 1h 0m (deep): 4 %/h, 2 W, woke by ACPI LID0 (wakeup_count +1) — drains fast (over 2 %/h)"))
            #expect(await sleep.count == 1)
            // The lock is held again for the next sleep.
            #expect(await sleep.holdsLock)
            #expect(try await Self.inhibitors(logind).count == 1)

            // A resume without a note before (the daemon started asleep) is said, not accounted.
            await sleep.resumed()
            #expect(records.withLock { $0 }.count == 1)
            #expect(lines.withLock { $0 }.contains("resumed from a sleep the daemon did not see begin: not accounted"))
            await sleep.stop()
            #expect(try await eventually { try await Self.inhibitors(logind).isEmpty })
            await bus.close()
        }
    }

    /// Without logind the lock cannot be taken: said once, and the account still notes.
    @Test func withoutLogindTheAccountNotesWithoutALock() async throws {
        let scratch = try Self.tree()
        try await PrivateBusDaemon.with { daemon in
            let bus = try await BusConnection.open(address: daemon.address)
            let lines = Locked<[String]>([])
            let records = Locked<[SleepRecord]>([])
            let sleep = DaemonSleep(
                bus: bus, root: FileRoot(scratch.path), battery: { nil },
                accounted: { record in records.withLock { $0.append(record) } }, log: { line in lines.withLock { $0.append(line) } })
            await sleep.takeLock()
            await sleep.takeLock()
            await sleep.preparing()
            try await Task.sleep(for: .milliseconds(20))
            await sleep.resumed()
            let said = lines.withLock { $0 }
            #expect(said.filter { $0.hasPrefix("sleep account: cannot take a delay lock from logind") }.count == 1, "\(said)")
            let record = try #require(records.withLock { $0 }.first)
            #expect(record.energyBeforeWh == nil && record.drainPercentPerHour == nil, "unknown stays unknown")
            #expect(record.isFlagged == false)
            await bus.close()
        }
    }
}
