import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleHistory
@testable import JouleDaemon
import JouleTesting
import Testing

/// The lines a recorder logged.
final class LogLines: Sendable {
    private let lines = Locked<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// A stand-in for the daemon's energy meter: whatever the test sets, counting the asks.
final class FixedEnergy: EnergySnapshotSource {
    private let watts = Locked<Double?>(nil)
    private let asks = Locked(0)

    init(_ watts: Double?) { self.watts.withLock { $0 = watts } }

    func set(_ value: Double?) { watts.withLock { $0 = value } }
    var count: Int { asks.withLock { $0 } }

    func snapshot() async -> EnergySnapshot {
        asks.withLock { $0 += 1 }
        return EnergySnapshot(timestamp: 0, source: .rapl, origin: "rapl:psys", systemWatts: watts.withLock { $0 })
    }
}

@Suite struct DaemonHistoryTests {
    typealias Scratch = TransferScratch

    struct Rig {
        let scratch: Scratch
        let store: HistoryStore
        let source: MemoryDeviceSource
        let engine: EnergyMonitor
        let clock: ManualClock
        let history: DaemonHistory
        let energy: FixedEnergy
        let log: LogLines
    }

    /// A discharging laptop at 60 % with one zone at 45 °C, a meter at 7.5 W, and a recorder
    /// that writes every `flushRows` rows.
    static func rig(flushRows: Int = 3, energy watts: Double? = 7.5, battery: Bool = true) async throws -> Rig {
        let scratch = try Scratch()
        let store = try HistoryStore(database: SQLiteDatabase(path: scratch.database))
        let source = MemoryDeviceSource()
        if battery {
            source.set("power_supply", [MemoryDeviceSource.battery(status: "Discharging", capacity: 60), MemoryDeviceSource.ac(online: false)])
        }
        source.set("thermal", [MemoryDeviceSource.zone(milli: "45000")])
        let clock = ManualClock(now: 1_000_000)
        var configuration = EnergyMonitor.Configuration()
        configuration.procRoot = "/nonexistent"
        let engine = try EnergyMonitor(source: source, overrideStore: nil, clock: clock, configuration: configuration)
        try await engine.start()
        var settings = DaemonHistory.Settings()
        settings.flushRows = flushRows
        let energy = FixedEnergy(watts)
        let log = LogLines()
        let history = DaemonHistory(
            store: store, engine: engine, energy: energy, reports: nil, clock: clock, settings: settings,
            log: { log.append($0) })
        return Rig(scratch: scratch, store: store, source: source, engine: engine, clock: clock, history: history, energy: energy, log: log)
    }

    /// Waits (real time, at most 10 s) until the recorder's timer sleeps on the clock again.
    static func asleep(_ clock: ManualClock) async throws {
        if await !clock.waitForSleepers(1, timeout: 10) { Issue.record("the recorder's timer never slept again") }
    }

    /// One minute on: once the timer sleeps, the clock moves, and the tick is done when it sleeps again.
    static func minute(_ rig: Rig) async throws {
        try await asleep(rig.clock)
        rig.clock.advance(by: .seconds(60))
        try await asleep(rig.clock)
    }

    static func stored(_ rig: Rig) throws -> [HistorySample] { try rig.store.read(since: -1e12, until: 1e12).samples }

    @Test func aStartRowThenOneEveryMinuteWrittenInBatches() async throws {
        let rig = try await Self.rig(flushRows: 3)
        await rig.history.start()
        #expect(try Self.stored(rig).isEmpty)  // pending until the batch is full
        try await Self.minute(rig)
        #expect(try Self.stored(rig).isEmpty)
        try await Self.minute(rig)
        let rows = try Self.stored(rig)
        #expect(rows.map(\.trigger) == [.start, .minute, .minute])
        #expect(rows.map(\.timestamp) == [1_000_000, 1_000_060, 1_000_120])
        let row = try #require(rows.last)
        #expect(row.percentage == 60)
        #expect(row.chargeState == .discharging)
        #expect(row.energyRateW == 10)
        #expect(row.powerW == 7.5)
        #expect(row.powerSource == "rapl:psys")
        #expect(row.lineOnline == false)
        #expect(row.lowPowerMode == false)
        #expect(row.thermalState == .nominal)
        #expect(row.temperatures == [HistoryTemperature(sensor: "thermal_zone0", label: "x86_pkg_temp", celsius: 45)])
        #expect(rig.energy.count == 3)
        await rig.history.stop()
        #expect(try Self.stored(rig).map(\.trigger) == [.start, .minute, .minute, .stop])
    }

    @Test func aChangeIsARowWithItsReasonAndChangesAtOneMomentMakeOne() async throws {
        let rig = try await Self.rig(flushRows: 100)
        await rig.history.start()
        try await rig.engine.setOverride(.on)
        let at = rig.clock.now()
        await rig.history.record(TimedEvent(timestamp: at, event: .powerStateDidChange(lowPowerMode: true, reason: "manual-on"), lowPowerMode: true, thermalState: .nominal))
        await rig.history.record(TimedEvent(timestamp: at, event: .lineChanged(name: "AC", online: false), lowPowerMode: true, thermalState: .nominal))
        await rig.history.record(TimedEvent(timestamp: at, event: .warningLevelChanged(level: .low, previous: .none), lowPowerMode: true, thermalState: .nominal))
        // A read writes what is pending first.
        let timeline = try await rig.history.timeline(since: 0, until: 2_000_000, visibleTo: nil)
        #expect(timeline.source == .daemon)
        #expect(timeline.samples.map(\.trigger) == [.start, .lowPowerMode])
        let change = try #require(timeline.samples.last)
        #expect(change.lowPowerMode)
        #expect(change.lowPowerModeSource == .manual)
        #expect(change.lowPowerModeReason == "manual-on")
        #expect(try Self.stored(rig).count == 2)
        await rig.history.stop()
    }

    /// Issue 32: a new daemon asked for the default 24 h drew 23 h 50 min of "no data". The
    /// range starts at its first row; an older history keeps the range asked for.
    @Test func aHistoryYoungerThanTheRangeStartsAtItsFirstRow() async throws {
        let rig = try await Self.rig(flushRows: 100)
        await rig.history.start()
        for _ in 0..<10 { try await Self.minute(rig) }
        let now = rig.clock.now()
        let young = try await rig.history.timeline(since: now - 86_400, until: now, visibleTo: nil)
        #expect(young.since == 1_000_000)
        #expect(young.samples.count == 11)
        let older = try await rig.history.timeline(since: 1_000_300, until: now, visibleTo: nil)
        #expect(older.since == 1_000_300)
        await rig.history.stop()
    }

    @Test func levelChangesAloneAreNotRowsButAChargeStateChangeIs() async throws {
        let rig = try await Self.rig(flushRows: 100)
        await rig.history.start()
        let update = BatteryUpdate(name: "BAT0", kind: .battery, state: .discharging, percentage: 59, energyRateW: 10, timeToEmptyS: nil, timeToFullS: nil)
        await rig.history.record(TimedEvent(timestamp: rig.clock.now(), event: .batteryChanged(update), lowPowerMode: false, thermalState: .nominal))
        rig.source.set("power_supply", [MemoryDeviceSource.battery(status: "Charging", capacity: 61), MemoryDeviceSource.ac(online: true)])
        try await rig.engine.start()
        rig.clock.advance(by: .seconds(5))
        await rig.history.record(TimedEvent(timestamp: rig.clock.now(), event: .batteryChanged(update), lowPowerMode: false, thermalState: .nominal))
        let rows = try await rig.history.timeline(since: 0, until: 2_000_000, visibleTo: nil).samples
        #expect(rows.map(\.trigger) == [.start, .chargeState])
        #expect(rows.last?.chargeState == .charging)
        #expect(rows.last?.lineOnline == true)
        await rig.history.stop()
    }

    @Test func withoutAMeterPowerIsNullAndWithoutABatteryItsValuesAre() async throws {
        let rig = try await Self.rig(flushRows: 1, energy: nil, battery: false)
        await rig.history.start()
        try await Self.minute(rig)
        let row = try #require(try Self.stored(rig).first)
        #expect(row.powerW == nil)
        #expect(row.powerSource == nil)
        #expect(row.percentage == nil)
        #expect(row.chargeState == nil)
        #expect(row.energyRateW == nil)
        #expect(row.lineOnline == nil)
        #expect(row.temperatures.first?.celsius == 45)
        await rig.history.stop()
    }

    @Test func aFinishedTransferIsAMarkerForItsOwnerAndRoot() async throws {
        let rig = try await Self.rig()
        await rig.history.start()
        var transfer = TransferScratch.download("/home/u/a.iso", owner: 1000)
        await rig.history.transferFinished(transfer)  // live: no marker
        transfer.state = .completed
        transfer.durableBytes = 4_096
        await rig.history.transferFinished(transfer)
        let mine = try await rig.history.timeline(since: 0, until: 2_000_000, visibleTo: 1000).entries
        #expect(mine == [HistoryEntry(
            timestamp: 1_000_000, kind: .transfer, id: transfer.id, subtype: "completed", subject: "/home/u/a.iso",
            bytes: 4_096, ownerUID: 1000)])
        #expect(try await rig.history.timeline(since: 0, until: 2_000_000, visibleTo: 1001).entries.isEmpty)
        #expect(try await rig.history.timeline(since: 0, until: 2_000_000, visibleTo: 0).entries.count == 1)
        await rig.history.stop()
    }

    /// A burst of finished transfers is written in batches of `flushRows`, not held until the
    /// minute rows fill a batch, and never more than `pendingLimit` wait in memory.
    @Test func finishedTransfersAreWrittenInBatches() async throws {
        let rig = try await Self.rig(flushRows: 3)
        await rig.history.start()
        func finish(_ n: Int) async {
            var transfer = TransferScratch.download("/home/u/\(n).iso", owner: 1000)
            transfer.state = .cancelled
            await rig.history.transferFinished(transfer)
        }
        for n in 0..<2 { await finish(n) }
        #expect(try rig.store.read(since: -1e12, until: 1e12).entries.isEmpty)
        await finish(2)
        // The third marker filled the batch: written with the start row, no minute needed.
        #expect(try rig.store.read(since: -1e12, until: 1e12).entries.count == 3)
        #expect(try Self.stored(rig).map(\.trigger) == [.start])
        await rig.history.stop()
    }

    @Test func retentionRunsAtMostOnceAnHour() async throws {
        let rig = try await Self.rig(flushRows: 1)
        let old = 1_000_000 - 40 * 86_400.0
        try rig.store.append([HistoryRows.sample(old), HistoryRows.sample(old + 60)])
        await rig.history.start()
        try await Self.minute(rig)
        #expect(try Self.stored(rig).filter { $0.timestamp < 1_000_000 }.map(\.trigger) == [.hourly])
        try rig.store.append([HistoryRows.sample(old + 120)])
        try await Self.minute(rig)
        #expect(try Self.stored(rig).filter { $0.timestamp < 1_000_000 }.map(\.trigger) == [.hourly, .minute])
        for _ in 0..<59 { try await Self.minute(rig) }
        #expect(try Self.stored(rig).filter { $0.timestamp < 1_000_000 }.map(\.trigger) == [.hourly, .hourly])
        #expect(rig.log.all.filter { $0.contains("hourly rows") }.count == 2)
        await rig.history.stop()
    }

    @Test func rowsTheStoreRefusesWaitForTheNextWrite() async throws {
        let rig = try await Self.rig(flushRows: 1)
        try rig.store.database.execute("ALTER TABLE history_samples RENAME TO held")
        await rig.history.start()
        try await Self.minute(rig)
        try await Self.minute(rig)
        #expect(rig.log.all.filter { $0.contains("cannot write") }.count == 1)
        try rig.store.database.execute("ALTER TABLE held RENAME TO history_samples")
        try await Self.minute(rig)
        #expect(try Self.stored(rig).map(\.trigger) == [.start, .minute, .minute, .minute])
        #expect(rig.log.all.contains("history: writing again"))
        await rig.history.stop()
    }

    /// An older joule's history moves out of transfers.db when the daemon opens it, said once.
    @Test func theDaemonLogsTheMoveOnce() async throws {
        let (scratch, directory, _) = try TransferScratch.legacyHistory()
        let source = MemoryDeviceSource()
        var configuration = EnergyMonitor.Configuration()
        configuration.procRoot = "/nonexistent"
        let engine = try EnergyMonitor(source: source, overrideStore: nil, clock: ManualClock(now: 1_000_000), configuration: configuration)
        let log = LogLines()
        let first = DaemonHistory.open(stateDirectory: directory, engine: engine, energy: nil, log: { log.append($0) })
        #expect(first != nil)
        let history = directory.file(HistoryStore.fileName)
        #expect(log.all == ["history: moved 1011 rows (3033 temperature readings) and 1 marker from \(scratch.database) to \(history)"])
        #expect(DaemonHistory.open(stateDirectory: directory, engine: engine, energy: nil, log: { log.append($0) }) != nil)
        #expect(log.all.count == 1)
    }

    /// Issue 36: a sleep noted at resume is written at once (with the rows pending), and every
    /// caller sees it: the machine's sleeps are not a user's, as transfers are.
    @Test func aSleepIsWrittenAtOnceAndEveryCallerSeesIt() async throws {
        let rig = try await Self.rig(flushRows: 10)
        await rig.history.start()
        let sleep = SleepRecord(
            start: 1_000_010, end: 1_000_050, energyBeforeWh: 40, energyAfterWh: 39.9, drainPercentPerHour: 11.25, drainW: 9,
            wakeReason: "ACPI LID0", mode: "s2idle")
        await rig.history.recordSleep(sleep)
        #expect(try rig.store.readSleeps(since: 0, until: 2e6) == [sleep])
        #expect(try Self.stored(rig).map(\.trigger) == [.start])
        for uid: UInt32? in [nil, 0, 1000, 1001] {
            #expect(try await rig.history.timeline(since: 990_000, until: 1_000_100, visibleTo: uid).sleeps == [sleep], "\(String(describing: uid))")
        }
        // One that is not a span is logged and dropped; the writes after it go on.
        await rig.history.recordSleep(SleepRecord(
            start: 1_000_100, end: .nan, energyBeforeWh: nil, energyAfterWh: nil, drainPercentPerHour: nil, drainW: nil, wakeReason: nil, mode: nil))
        #expect(rig.log.all.contains { $0.hasPrefix("history: not recording a sleep from 1000100.0 to nan") })
        await rig.history.stop()
        #expect(try rig.store.readSleeps(since: 0, until: 2e6) == [sleep])
        #expect(try Self.stored(rig).map(\.trigger) == [.start, .stop])
    }

    /// A sleep the store refuses waits for the next write, as rows do.
    @Test func aSleepTheStoreRefusesWaitsForTheNextWrite() async throws {
        let rig = try await Self.rig(flushRows: 10)
        try rig.store.database.execute("ALTER TABLE history_sleeps RENAME TO held")
        let sleep = SleepRecord(
            start: 1_000_010, end: 1_000_050, energyBeforeWh: nil, energyAfterWh: nil, drainPercentPerHour: nil, drainW: nil,
            wakeReason: nil, mode: "deep")
        await rig.history.recordSleep(sleep)
        #expect(rig.log.all.contains { $0.hasPrefix("history: cannot write 0 rows and 1 sleep (kept for the next try)") })
        try rig.store.database.execute("ALTER TABLE held RENAME TO history_sleeps")
        await rig.history.start()
        await rig.history.stop()
        #expect(try rig.store.readSleeps(since: 0, until: 2e6) == [sleep])
        #expect(rig.log.all.contains("history: writing again"))
    }
}
