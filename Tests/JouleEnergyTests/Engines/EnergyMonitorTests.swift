import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
import JouleTesting
import Testing

/// Collects what the engine emits.
final class EventLog: Sendable {
    private let events = Locked<[TimedEvent]>([])
    func append(_ event: TimedEvent) { events.withLock { $0.append(event) } }
    func take() -> [EnergyEvent] { events.withLock { log in defer { log.removeAll() }; return log.map(\.event) } }
}

@Suite struct EnergyMonitorTests {
    /// Starts an engine on `source` with a manual clock, returning the pieces a test drives.
    static func launch(_ source: MemoryDeviceSource, fixed: Duration? = nil) async throws -> (EnergyMonitor, ManualClock, EventLog, Task<Void, Never>) {
        let clock = ManualClock(now: 1_000)
        var configuration = EnergyMonitor.Configuration()
        configuration.schedule.fixedInterval = fixed
        configuration.procRoot = "/nonexistent"
        let monitor = try EnergyMonitor(source: source, overrideStore: nil, clock: clock, configuration: configuration)
        let log = EventLog()
        try await monitor.start()
        let task = Task { await monitor.run { log.append($0) } }
        #expect(await clock.waitForSleepers(1))
        return (monitor, clock, log, task)
    }

    /// Moves the clock on and waits until the engine is asleep again.
    static func step(_ clock: ManualClock, by span: Duration) async {
        clock.advance(by: span)
        await clock.waitForSleepers(1)
    }

    @Test func nothingChangesNothingIsEmitted() async throws {
        let source = MemoryDeviceSource()
        source.set("power_supply", [MemoryDeviceSource.battery(status: "Discharging", capacity: 60), MemoryDeviceSource.ac(online: false)])
        source.set("thermal", [MemoryDeviceSource.zone(milli: "45000")])
        let (_, clock, log, task) = try await Self.launch(source, fixed: .seconds(1))
        for _ in 0..<30 { await Self.step(clock, by: .seconds(1)) }
        #expect(log.take().isEmpty)
        task.cancel()
        await task.value
    }

    @Test func batteryDroppingBelowTwentyPercentWithinOnePoll() async throws {
        let source = MemoryDeviceSource()
        source.set("power_supply", [MemoryDeviceSource.battery(status: "Discharging", capacity: 21), MemoryDeviceSource.ac(online: false)])
        let (monitor, clock, log, task) = try await Self.launch(source)
        #expect(await monitor.lowPowerMode == false)
        source.set("power_supply", [MemoryDeviceSource.battery(status: "Discharging", capacity: 20), MemoryDeviceSource.ac(online: false)])
        // Near the 20 % threshold the engine polls every 5 s.
        await Self.step(clock, by: .seconds(5))
        let events = log.take()
        #expect(events.contains(.powerStateDidChange(lowPowerMode: true, reason: "battery-low")))
        #expect(events.contains(.warningLevelChanged(level: .low, previous: .none)))
        #expect(await monitor.lowPowerMode)
        task.cancel()
        await task.value
    }

    @Test func zoneCrossingATripIsConfirmedThenAnnounced() async throws {
        let source = MemoryDeviceSource()
        source.set("thermal", [MemoryDeviceSource.zone(milli: "70000")])
        let (monitor, clock, log, task) = try await Self.launch(source, fixed: .seconds(1))
        source.set("thermal", [MemoryDeviceSource.zone(milli: "91000")])
        await Self.step(clock, by: .seconds(1))
        #expect(log.take().isEmpty)  // seen once: confirming
        await Self.step(clock, by: .milliseconds(100))
        #expect(log.take() == [.thermalStateDidChange(state: .serious, previous: .nominal, cause: "thermal_zone0")])
        #expect(await monitor.thermalState == .serious)
        // A failing sensor holds the last vote rather than reading as cool.
        source.set("thermal", [MemoryDeviceSource.zone(milli: "garbage")])
        for _ in 0..<5 { await Self.step(clock, by: .seconds(1)) }
        #expect(log.take().isEmpty)
        task.cancel()
        await task.value
    }

    @Test func pluggingInAndRemovingABattery() async throws {
        let source = MemoryDeviceSource()
        source.set("power_supply", [MemoryDeviceSource.battery(status: "Discharging", capacity: 50), MemoryDeviceSource.ac(online: false)])
        let (_, clock, log, task) = try await Self.launch(source, fixed: .seconds(1))
        source.set("power_supply", [MemoryDeviceSource.battery(status: "Charging", capacity: 50), MemoryDeviceSource.ac(online: true)])
        await Self.step(clock, by: .seconds(1))
        let plugged = log.take()
        #expect(plugged.contains(.lineChanged(name: "AC", online: true)))
        #expect(plugged.contains { if case .batteryChanged(let update) = $0 { update.state == .charging } else { false } })
        source.set("power_supply", [MemoryDeviceSource.ac(online: true)])
        await Self.step(clock, by: .seconds(1))
        #expect(log.take() == [.powerSourceRemoved(name: "BAT0", kind: .battery)])
        task.cancel()
        await task.value
    }
}

/// The snapshot is computed once, with the engine's own thresholds.
@Suite struct SnapshotThresholdTests {
    static let xps = PackageRoot.url.appendingPathComponent("hw-fixtures/dell-xps-13-low-battery-discharging").path

    @Test func statusFollowsConfiguredThresholds() throws {
        let source = SysfsDeviceSource(root: Self.xps)
        let defaults = try StatusReport.collect(source: source, procRoot: Self.xps, lowPowerOverride: .auto)
        #expect(defaults.lowPowerMode && defaults.warningLevel == .low)  // 14 % against 20 %
        var power = PowerStateMachine.Configuration()
        power.lowPercent = 10
        power.warningLowPercent = 12
        power.warningCriticalPercent = 5
        let custom = try StatusReport.collect(source: source, procRoot: Self.xps, lowPowerOverride: .auto, power: power)
        #expect(!custom.lowPowerMode && custom.warningLevel == .none)
    }

    @Test func engineSnapshotAgreesWithTheEngine() async throws {
        var configuration = EnergyMonitor.Configuration()
        configuration.power.lowPercent = 10
        configuration.procRoot = Self.xps
        let monitor = try EnergyMonitor(
            source: SysfsDeviceSource(root: Self.xps), overrideStore: nil, clock: ManualClock(), configuration: configuration)
        let snapshot = try await monitor.start()
        #expect(!snapshot.lowPowerMode)
        #expect(await monitor.lowPowerMode == snapshot.lowPowerMode)
        #expect(await monitor.warningLevel == snapshot.warningLevel)
    }
}
