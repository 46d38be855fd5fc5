import Foundation
import JouleWire
import JouleHardware
import JouleEnergy
import JouleHistory
@testable import JouleDaemon
import JouleTesting
import Testing

/// The daemon's charge limit on a writable copy of the two-battery ThinkPad (75-80 in
/// firmware): its own writes never look like drift, an EC reset is written again, full-once
/// lifts the thresholds and a new limit ends it, and ChargeLimit says so.
@Suite struct DaemonChargeLimitTests {
    final class Lines: Sendable {
        let lines = Locked<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    static func tree() throws -> (ScratchDirectory, FileRoot, PowerSupplies) {
        let scratch = try ScratchDirectory(prefix: "joule-daemon-charge")
        let fixture = PackageRoot.url.appendingPathComponent("hw-fixtures/thinkpad-t480-two-batteries-discharging")
        for top in ["sys", "proc"] {
            try FileManager.default.copyItem(atPath: fixture.appendingPathComponent(top).path, toPath: scratch.path + "/" + top)
        }
        let supplies = try PowerSupplyReader(source: SysfsDeviceSource(root: scratch.path)).read()
        return (scratch, FileRoot(scratch.path), supplies)
    }

    static func threshold(_ root: FileRoot, _ battery: String, _ name: String) throws -> String {
        try String(contentsOfFile: "\(root.prefix)/sys/class/power_supply/\(battery)/charge_control_\(name)_threshold", encoding: .utf8)
    }

    @Test func ownWritesAreNotDriftAndAnECResetIsWrittenAgain() async throws {
        let (scratch, root, supplies) = try Self.tree()
        _ = scratch
        let log = Lines()
        let keeper = DaemonChargeLimit(limit: try ChargeLimitRequest(start: 60, end: 70), root: root, log: log.append)
        await keeper.apply(supplies, reason: "start")
        #expect(try Self.threshold(root, "BAT0", "start") == "60\n")
        #expect(try Self.threshold(root, "BAT1", "end") == "70\n")
        #expect(await keeper.busValue == .variantDictionary([
            ("start", .uint32(60)), ("end", .uint32(70)), ("source", .string("firmware")), ("holds", .bool(true)), ("fullOnce", .bool(false)),
        ]))
        let applied = log.all.count
        // The engine's reading still shows 75-80 (thresholds are re-read only on a rescan):
        // the keeper reads them again, so its own writes are not taken for a reset.
        await keeper.observe(supplies)
        #expect(log.all.count == applied, "\(log.all)")

        try "100\n".write(toFile: "\(root.prefix)/sys/class/power_supply/BAT0/charge_control_end_threshold", atomically: false, encoding: .utf8)
        await keeper.observe(supplies)
        #expect(try Self.threshold(root, "BAT0", "end") == "70\n")
        #expect(log.all.dropFirst(applied).first == "BAT0: charge thresholds read 60-100, not 60-70 (reset by the firmware?): applying again", "\(log.all)")
        let afterReset = log.all.count
        await keeper.observe(supplies)
        #expect(log.all.count == afterReset, "nothing more once it holds again: \(log.all)")
    }

    @Test func fullOnceLiftsTheLimitAndANewLimitEndsIt() async throws {
        let (scratch, root, supplies) = try Self.tree()
        _ = scratch
        let keeper = DaemonChargeLimit(limit: nil, root: root, log: { _ in })
        #expect(await keeper.chargeFullOnce(supplies) == false, "nothing to lift without a limit")
        #expect(await keeper.busValue == .variantDictionary([]))
        #expect(try Self.threshold(root, "BAT0", "end") == "80\n", "no limit: charging is left alone")

        #expect(await keeper.set(try ChargeLimitRequest(start: nil, end: 85), supplies: supplies).isEmpty)
        #expect(try Self.threshold(root, "BAT0", "end") == "85\n")
        #expect(await keeper.chargeFullOnce(supplies))
        #expect(try Self.threshold(root, "BAT0", "end") == "100\n")
        #expect(try Self.threshold(root, "BAT0", "start") == "0\n")
        let entries = try #require(await keeper.busValue.stringKeyedEntries)
        #expect(entries.contains { $0.0 == "fullOnce" && $0.1 == .bool(true) })
        #expect(entries.contains { $0.0 == "end" && $0.1 == .uint32(85) }, "ChargeLimit shows the limit that returns")
        #expect(entries.contains { $0.0 == "start" } == false)

        await keeper.set(try ChargeLimitRequest(start: 50, end: 90), supplies: supplies)
        #expect(try Self.threshold(root, "BAT0", "start") == "50\n")
        #expect(try Self.threshold(root, "BAT0", "end") == "90\n")
        let after = try #require(await keeper.busValue.stringKeyedEntries)
        #expect(after.contains { $0.0 == "fullOnce" && $0.1 == .bool(false) })
    }

    /// Full-once ends when the charger, seen online, is unplugged: the limit is written again.
    @Test func fullOnceEndsAtTheUnplug() async throws {
        let (scratch, root, discharging) = try Self.tree()
        _ = scratch
        var plugged = discharging
        for index in plugged.lineSources.indices where plugged.lineSources[index].kind == "Mains" { plugged.lineSources[index].online = true }
        #expect(plugged.lineOnline && !discharging.lineOnline)
        let log = Lines()
        let keeper = DaemonChargeLimit(limit: try ChargeLimitRequest(start: 60, end: 70), root: root, log: log.append)
        await keeper.apply(plugged, reason: "start")
        #expect(await keeper.chargeFullOnce(plugged))
        await keeper.observe(plugged)
        #expect(try Self.threshold(root, "BAT0", "end") == "100\n", "still charging fully while plugged in")
        await keeper.observe(discharging)
        #expect(try Self.threshold(root, "BAT0", "start") == "60\n")
        #expect(try Self.threshold(root, "BAT0", "end") == "70\n")
        #expect(log.all.contains("charger unplugged after a full charge: the charge limit 60-70 returns"), "\(log.all)")
        let entries = try #require(await keeper.busValue.stringKeyedEntries)
        #expect(entries.contains { $0.0 == "fullOnce" && $0.1 == .bool(false) })
    }

    @Test func aRefusalIsReportedInErrorAndHoldsIsFalse() async throws {
        let (scratch, root, supplies) = try Self.tree()
        _ = scratch
        // BAT1 loses its end threshold file and its charge_behaviour: no limit is possible there.
        let bat1 = URL(fileURLWithPath: "\(root.prefix)/sys/class/power_supply/BAT1").resolvingSymlinksInPath().path
        for name in ["charge_control_end_threshold", "charge_control_start_threshold", "charge_behaviour"] {
            try FileManager.default.removeItem(atPath: bat1 + "/" + name)
        }
        let keeper = DaemonChargeLimit(limit: nil, root: root, log: { _ in })
        let refusals = await keeper.set(try ChargeLimitRequest(start: nil, end: 80), supplies: supplies)
        #expect(refusals == ["BAT1: has no charge_control_end_threshold and no charge_behaviour inhibit-charge: no charge limit is possible"], "\(refusals)")
        let entries = try #require(await keeper.busValue.stringKeyedEntries)
        #expect(entries.contains { $0.0 == "holds" && $0.1 == .bool(false) })
        #expect(entries.contains { $0.0 == "error" && $0.1 == .string(refusals[0]) })
    }
}

/// Optimized charging in the daemon, on a generated history (four weeks of overnight charges
/// plugged 23:00, unplugged 07:45, charging 80 → 100 % at 20 %/h) and an injected clock in
/// UTC+1: held at 80 % from the evening's plug-in, released at 06:30 to be full by 07:30, and
/// charging normally with too little history.
extension DaemonChargeLimitTests {
    static let offset = 3600
    static let monday = Double(CivilCalendar.days(year: 2026, month: 11, day: 16))

    static func at(_ day: Double, _ h: Double, _ m: Double) -> Double { (monday + day) * 86_400 - Double(offset) + h * 3600 + m * 60 }

    static func sample(_ time: Double, online: Bool, percent: Double, charging: Bool) -> HistorySample {
        HistorySample(
            timestamp: time, trigger: .minute, percentage: percent, chargeState: charging ? .charging : .discharging, energyRateW: nil,
            powerW: nil, powerSource: nil, lineOnline: online, lowPowerMode: false, lowPowerModeSource: .auto, lowPowerModeReason: nil,
            thermalState: .nominal, temperatures: [])
    }

    /// Every 15 minutes around each night of the four weeks before Monday 16th.
    static func routine() -> [HistorySample] {
        var samples: [HistorySample] = []
        for day in stride(from: -28.0, through: -1, by: 1) {
            let weekend = [5.0, 6].contains((day.truncatingRemainder(dividingBy: 7) + 7).truncatingRemainder(dividingBy: 7))
            let unplug = weekend ? at(day, 9, 30) : at(day, 7, 45)
            samples.append(sample(at(day - 1, 22, 45), online: false, percent: 50, charging: false))
            var time = at(day - 1, 23, 0), percent = 50.0
            while time < unplug {
                samples.append(sample(time, online: true, percent: percent, charging: percent < 100))
                time += 900
                percent = min(100, percent + 5)
            }
            samples.append(sample(unplug, online: false, percent: 100, charging: false))
        }
        return samples
    }

    @Test func optimizedChargingHoldsOvernightAndReleasesToBeFullByTheUsualUnplug() async throws {
        let (scratch, root, discharging) = try Self.tree()
        _ = scratch
        var plugged = discharging
        for index in plugged.lineSources.indices where plugged.lineSources[index].kind == "Mains" { plugged.lineSources[index].online = true }
        let clock = Locked(Self.at(-1, 22, 0))
        let history = Self.routine()
        let log = Lines()
        let keeper = DaemonChargeLimit(
            limit: nil, optimizedCharging: true, root: root, history: { since in history.filter { $0.timestamp >= since } },
            now: { clock.withLock { $0 } }, utcOffset: { _ in Self.offset }, log: log.append)
        // Started on battery: optimized charging charges normally until a charge is worth holding.
        await keeper.apply(discharging, reason: "start")
        await keeper.observe(discharging)
        #expect(try Self.threshold(root, "BAT0", "end") == "100\n", "\(log.all)")

        // Plugged in at 23:00 on Sunday: held at 80 % (the default hold level).
        clock.withLock { $0 = Self.at(-1, 23, 0) }
        await keeper.observe(plugged)
        #expect(try Self.threshold(root, "BAT0", "end") == "80\n", "\(log.all)")
        // The two batteries are below 80 % together: 80 → 100 % at the history's 20 %/h is an hour.
        #expect(log.all.contains("optimized charging: holding at 80 % until 06:30, full by 07:30 (unplugged 07:45 ± 0 min on 10 of the last 10 weekdays)"), "\(log.all)")
        let held = try #require(await keeper.busValue.stringKeyedEntries)
        #expect(held.contains { $0.0 == "optimizedCharging" && $0.1 == .bool(true) })
        #expect(held.contains { $0.0 == "holdUntil" && $0.1 == .double(Self.at(0, 6, 30)) }, "\(held)")

        // 06:30: released, charging on to 100 %.
        clock.withLock { $0 = Self.at(0, 6, 30) }
        await keeper.observe(plugged)
        #expect(try Self.threshold(root, "BAT0", "end") == "100\n")
        let released = try #require(await keeper.busValue.stringKeyedEntries)
        #expect(released.contains { $0.0 == "optimized" && $0.1 == .string("charging to 100 %, full by 07:30 (unplugged 07:45 ± 0 min on 10 of the last 10 weekdays)") }, "\(released)")

        // Unplugged: stays at 100 % (normal charging) until the next evening's charge.
        clock.withLock { $0 = Self.at(0, 7, 45) }
        await keeper.observe(discharging)
        #expect(try Self.threshold(root, "BAT0", "end") == "100\n")
    }

    @Test func optimizedChargingWithThinHistoryChargesNormallyAndSaysWhy() async throws {
        let (scratch, root, discharging) = try Self.tree()
        _ = scratch
        var plugged = discharging
        for index in plugged.lineSources.indices where plugged.lineSources[index].kind == "Mains" { plugged.lineSources[index].online = true }
        let history = Self.routine().filter { $0.timestamp >= Self.at(-4, 0, 0) }  // Thursday to Sunday mornings
        let log = Lines()
        let keeper = DaemonChargeLimit(
            limit: try ChargeLimitRequest(start: 70, end: 75), optimizedCharging: true, root: root, history: { _ in history },
            now: { Self.at(-1, 23, 0) }, utcOffset: { _ in Self.offset }, log: log.append)
        await keeper.apply(plugged, reason: "start")
        await keeper.observe(plugged)
        #expect(try Self.threshold(root, "BAT0", "end") == "100\n")
        #expect(log.all.contains("optimized charging: charging normally: too little evidence (overnight charges on 4 of the last 14 days, 2 on weekdays; needs 5 and 3)"), "\(log.all)")
    }
}
