import Foundation
import JouleHardware
import JouleEnergy
import JouleTransferQueue
import Testing

/// The pure condition function: each rule of issue 13, and the order of `waitingFor`.
struct TransferConditionsTests {
    typealias Requirements = TransferConditions.Requirements
    typealias Environment = TransferConditions.Environment

    static let roomy = TransferConditions.FileSpace(freeBytes: 500_000_000, totalBytes: 1_000_000_000)
    /// On AC, unmetered, cool, full battery, plenty of room, at t = 1000.
    static let open = Environment(
        lineOnline: true, batteryPercentage: 80, lowPowerMode: false, thermalState: .nominal, metered: false, space: roomy,
        now: 1000)
    /// Everything a discretionary transfer dislikes.
    static let closed = Environment(
        lineOnline: false, batteryPercentage: 10, lowPowerMode: true, thermalState: .serious, metered: true,
        space: TransferConditions.FileSpace(freeBytes: 10, totalBytes: 1_000_000_000), now: 1000)

    @Test func theRawValuesAreTheBindingWordsInOrder() {
        #expect(TransferCondition.allCases.map(\.rawValue) == ["ac", "unmetered", "battery", "lowPowerMode", "thermal", "storage", "beginAfter", "batch"])
        #expect(TransferCondition(rawValue: "lowPowerMode") == .lowPowerMode)
        #expect([TransferCondition.batch, .ac, .storage].sorted() == [.ac, .storage, .batch])
    }

    @Test func nothingIsUnmetWhenAllIsWell() {
        #expect(TransferConditions.unmet(Requirements(discretionary: true, unmeteredOnly: true, requireAC: true), in: Self.open).isEmpty)
        #expect(TransferConditions.unmet(Requirements(), in: Self.open).isEmpty)
    }

    @Test func discretionaryWaitsForEverythingInOrder() {
        var requirements = Requirements(discretionary: true, beginAfter: 2000, remainingBytes: 100)
        #expect(
            TransferConditions.unmet(requirements, in: Self.closed)
                == [.ac, .unmetered, .battery, .lowPowerMode, .thermal, .storage, .beginAfter])
        requirements.beginAfter = 1000  // begins at now: met
        #expect(!TransferConditions.unmet(requirements, in: Self.closed).contains(.beginAfter))
    }

    @Test func withoutDiscretionaryOnlyTheNetworkAskedForAndCriticalHeatCount() {
        // Off AC, low battery, Low Power Mode, serious heat, metered: a plain transfer runs.
        var closed = Self.closed
        closed.space = Self.roomy
        #expect(TransferConditions.unmet(Requirements(), in: closed).isEmpty)
        #expect(TransferConditions.unmet(Requirements(unmeteredOnly: true), in: closed) == [.unmetered])
        #expect(TransferConditions.unmet(Requirements(requireAC: true), in: closed) == [.ac])
        closed.thermalState = .critical
        #expect(TransferConditions.unmet(Requirements(), in: closed) == [.thermal])
    }

    @Test func thermalAtMostFairForDiscretionary() {
        var environment = Self.open
        let discretionary = Requirements(discretionary: true)
        environment.thermalState = .fair
        #expect(TransferConditions.unmet(discretionary, in: environment).isEmpty)
        environment.thermalState = .serious
        #expect(TransferConditions.unmet(discretionary, in: environment) == [.thermal])
        #expect(TransferConditions.unmet(Requirements(), in: environment).isEmpty)
    }

    @Test func onACIsTheLineSourceNotTheBatteryStatus() {
        // A battery held at a charge threshold: "Not charging", yet the line is online.
        var environment = Self.open
        environment.lineOnline = true
        #expect(TransferConditions.unmet(Requirements(discretionary: true), in: environment).isEmpty)
        environment.lineOnline = false
        #expect(TransferConditions.unmet(Requirements(discretionary: true), in: environment) == [.ac])
    }

    @Test func batteryNotLowIsAbove15PercentOrNoBattery() {
        var environment = Self.open
        let discretionary = Requirements(discretionary: true)
        environment.batteryPercentage = 15
        #expect(TransferConditions.unmet(discretionary, in: environment) == [.battery])
        environment.batteryPercentage = 15.5
        #expect(TransferConditions.unmet(discretionary, in: environment).isEmpty)
        environment.batteryPercentage = nil  // a desktop
        #expect(TransferConditions.unmet(discretionary, in: environment).isEmpty)
        environment.batteryPercentage = 3
        #expect(TransferConditions.unmet(Requirements(), in: environment).isEmpty)
    }

    @Test func storageKeepsTheRemainingBytesPlusFivePercentFree() {
        let space = TransferConditions.FileSpace(freeBytes: 150, totalBytes: 1000)  // reserve 50
        var environment = Self.open
        environment.space = space
        #expect(TransferConditions.unmet(Requirements(remainingBytes: 100), in: environment).isEmpty)
        #expect(TransferConditions.unmet(Requirements(remainingBytes: 101), in: environment) == [.storage])
        // Unknown size: only the reserve.
        #expect(TransferConditions.unmet(Requirements(), in: environment).isEmpty)
        environment.space = TransferConditions.FileSpace(freeBytes: 49, totalBytes: 1000)
        #expect(TransferConditions.unmet(Requirements(), in: environment) == [.storage])
        // Unknown space holds nothing back.
        environment.space = nil
        #expect(TransferConditions.unmet(Requirements(remainingBytes: .max), in: environment).isEmpty)
        #expect(!TransferConditions.hasRoom(for: .max, in: space))
        #expect(TransferConditions.couldEverFit(950, in: space))
        #expect(!TransferConditions.couldEverFit(951, in: space))
    }

    @Test func fileSpaceFromTheHardwareReading() {
        let space = TransferConditions.FileSpace(FileSystem.Space(free: 7, total: 9))
        #expect(space == TransferConditions.FileSpace(freeBytes: 7, totalBytes: 9))
    }
}

/// The same rules on the engines' readings of the fixture machines in hw-fixtures/.
struct TransferConditionsFixtureTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("hw-fixtures").path

    static func environment(_ machine: String, metered: Bool = false) throws -> TransferConditions.Environment {
        let root = fixtures + "/" + machine
        let report = try StatusReport.collect(
            source: SysfsDeviceSource(root: root), procRoot: root, lowPowerOverride: .auto)
        return TransferConditions.Environment(report: report, metered: metered, space: TransferConditionsTests.roomy, now: 1000)
    }

    static let discretionary = TransferConditions.Requirements(discretionary: true)

    @Test func onACWithABatteryThatSaysUnknownIsOnAC() throws {
        // The battery's status is "Unknown" (a charge threshold), the adapter is online.
        let environment = try Self.environment("lenovo-ideapad-unknown-status-on-ac")
        #expect(environment.lineOnline)
        #expect(TransferConditions.unmet(Self.discretionary, in: environment).isEmpty)
        #expect(TransferConditions.unmet(Self.discretionary, in: try Self.environment("dell-latitude-7490-full-on-ac")).isEmpty)
    }

    @Test func aLowBatteryOffACWaitsForBoth() throws {
        let environment = try Self.environment("dell-xps-13-low-battery-discharging")
        let unmet = TransferConditions.unmet(Self.discretionary, in: environment)
        #expect(unmet.starts(with: [.ac, .battery]))
        #expect(TransferConditions.unmet(TransferConditions.Requirements(), in: environment).isEmpty)
    }

    @Test func anOverheatedMachineHoldsDiscretionaryTransfers() throws {
        let environment = try Self.environment("hp-zbook-overheated-fan-active")
        #expect(environment.thermalState > .fair)
        #expect(TransferConditions.unmet(Self.discretionary, in: environment).contains(.thermal))
    }

    @Test func noBatteryIsNeverLow() throws {
        let environment = try Self.environment("raspberry-pi-4-no-battery", metered: true)
        #expect(environment.batteryPercentage == nil)
        #expect(!TransferConditions.unmet(Self.discretionary, in: environment).contains(.battery))
        #expect(TransferConditions.unmet(TransferConditions.Requirements(unmeteredOnly: true), in: environment) == [.unmetered])
    }
}
