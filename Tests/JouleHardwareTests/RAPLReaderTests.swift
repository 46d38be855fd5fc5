import Foundation
import Testing

@testable import JouleHardware

/// Fixture roots and writable trees for the RAPL tests.
enum RAPLFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("hw-fixtures")

    static func root(_ machine: String) -> FileRoot { FileRoot(directory.appendingPathComponent(machine).path) }

    static let xps = "dell-xps-13-low-battery-discharging"
    static let ryzenDesktop = "desktop-ups-on-battery"
    static let intelRange: UInt64 = 262_143_328_850
    static let amdRange: UInt64 = 65_532_610_987

    /// What an unprivileged process gets since the CVE-2020-8694 fix: `energy_uj` is mode 0400,
    /// the other files stay world-readable. Injected because root (as the tests run here)
    /// reads 0400 files anyway, and git cannot store the mode.
    static let unprivileged: @Sendable (String) throws(HardwareError) -> [UInt8] = { path throws(HardwareError) in
        if path.hasSuffix("/energy_uj") { throw HardwareError(operation: "open", path: path, errno: .permissionDenied) }
        return try FileSystem.readBytes(path)
    }

    /// A writable copy of a fixture machine, removed when released.
    final class Copy {
        let path: String
        init(_ machine: String) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("joule-rapl-\(UUID().uuidString)").path
            try FileManager.default.copyItem(atPath: directory.appendingPathComponent(machine).path, toPath: path)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        var root: FileRoot { FileRoot(path) }

        func write(_ zone: String, _ file: String, _ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/sys/class/powercap/\(zone)/\(file)"))
        }
    }
}

@Suite struct RAPLReaderTests {
    @Test func intelLaptopZonesAndHierarchy() throws {
        let reading = try RAPLReader(root: RAPLFixtures.root(RAPLFixtures.xps)).read()
        // The control type `intel-rapl` is not a zone; parents come before their children.
        #expect(reading.zones.map(\.id) == ["intel-rapl:0", "intel-rapl:0:0", "intel-rapl:0:1", "intel-rapl:0:2", "intel-rapl:1"])
        #expect(reading.zones.map(\.name) == ["package-0", "core", "uncore", "dram", "psys"])
        #expect(reading.zones.map(\.kind) == [.package, .core, .uncore, .dram, .psys])
        #expect(reading.zones.map(\.parentID) == [nil, "intel-rapl:0", "intel-rapl:0", "intel-rapl:0", nil])
        #expect(reading.topLevel.map(\.id) == ["intel-rapl:0", "intel-rapl:1"])
        #expect(reading.children(of: "intel-rapl:0").map(\.name) == ["core", "uncore", "dram"])
        #expect(!reading.isRootOnly)
    }

    @Test func intelLaptopValues() throws {
        let reading = try RAPLReader(root: RAPLFixtures.root(RAPLFixtures.xps)).read()
        let package = try #require(reading.zone("intel-rapl:0"))
        #expect(package.path == "/sys/class/powercap/intel-rapl:0")
        #expect(package.energyMicrojoules == 262_095_512_433)
        #expect(package.maxRangeMicrojoules == RAPLFixtures.intelRange)
        #expect(package.energyUnknown == nil && package.maxRangeUnknown == nil && package.nameUnknown == nil)
        #expect(reading.zone("intel-rapl:0:0")?.energyMicrojoules == 98_734_113_907)
        #expect(reading.zone("intel-rapl:0:1")?.energyMicrojoules == 4_511_893_420)
        #expect(reading.zone("intel-rapl:0:2")?.energyMicrojoules == 21_305_776_012)
        #expect(reading.zone("intel-rapl:1")?.energyMicrojoules == 187_366_905_114)
        #expect(reading.zones.allSatisfy { $0.maxRangeMicrojoules == RAPLFixtures.intelRange })
    }

    @Test func amdDesktopUsesTheSameFiles() throws {
        let reading = try RAPLReader(root: RAPLFixtures.root(RAPLFixtures.ryzenDesktop)).read()
        #expect(reading.zones.map(\.id) == ["intel-rapl:0", "intel-rapl:0:0"])
        #expect(reading.zones.map(\.kind) == [.package, .core])
        #expect(reading.zones.map(\.energyMicrojoules) == [41_872_509_114, 12_008_771_365])
        #expect(reading.zones.allSatisfy { $0.maxRangeMicrojoules == RAPLFixtures.amdRange })
    }

    @Test func machinesWithoutPowercapHaveNoZones() throws {
        for machine in ["raspberry-pi-4-no-battery", "dell-latitude-7490-full-on-ac"] {
            #expect(try RAPLReader(root: RAPLFixtures.root(machine)).read().isEmpty)
        }
    }

    @Test func missingRootThrowsNamingIt() {
        let root = FileRoot("/nonexistent-joule-root")
        #expect(throws: HardwareError(operation: "open root", path: "/nonexistent-joule-root", errno: .noEntry)) {
            try RAPLReader(root: root).read()
        }
    }

    @Test func rootOnlyEnergyIsReportedNotZero() throws {
        let reading = try RAPLReader(root: RAPLFixtures.root(RAPLFixtures.xps), readFile: RAPLFixtures.unprivileged).read()
        #expect(reading.zones.count == 5)
        #expect(reading.isRootOnly)
        for zone in reading.zones {
            #expect(zone.energyMicrojoules == nil)
            #expect(zone.energyUnknown == .rootOnly(path: zone.path + "/energy_uj"))
            // name and max_energy_range_uj stay world-readable on real kernels.
            #expect(zone.name != nil && zone.maxRangeMicrojoules == RAPLFixtures.intelRange)
        }
        let reason = try #require(reading.zone("intel-rapl:0")?.energyUnknown)
        #expect(reason.description.contains("/sys/class/powercap/intel-rapl:0/energy_uj: root-only"))
        #expect(RAPLHostDomains.select(from: reading) == nil)
        #expect(RAPLHostDomains.unavailableReason(reading).contains("root-only"))
    }

    /// The real permission check, where it can happen: root reads any file regardless of mode.
    @Test(.enabled(if: getuid() != 0, "root reads files whatever their mode; rootOnlyEnergyIsReportedNotZero covers it"))
    func modeZeroFourHundredIsRootOnlyForAUser() throws {
        let fm = FileManager.default
        let root = fm.temporaryDirectory.appendingPathComponent("joule-rapl-\(UUID().uuidString)").path
        defer { try? fm.removeItem(atPath: root) }
        let zone = root + "/sys/class/powercap/intel-rapl:0"
        try fm.createDirectory(atPath: zone, withIntermediateDirectories: true)
        for (file, text) in ["name": "package-0\n", "energy_uj": "123\n", "max_energy_range_uj": "262143328850\n"] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: zone + "/" + file))
        }
        // The kernel's file is root's with mode 0400; a user cannot make a root-owned file, and
        // its own 0400 file it could read, so mode 000 gives the same EACCES.
        try fm.setAttributes([.posixPermissions: 0o000], ofItemAtPath: zone + "/energy_uj")
        let read = try #require(try RAPLReader(root: FileRoot(root)).read().zone("intel-rapl:0"))
        #expect(read.energyMicrojoules == nil)
        #expect(read.energyUnknown == .rootOnly(path: "/sys/class/powercap/intel-rapl:0/energy_uj"))
        #expect(read.maxRangeMicrojoules == 262_143_328_850)
    }

    @Test func garbageIsAParseErrorNamingTheFile() throws {
        let copy = try RAPLFixtures.Copy(RAPLFixtures.xps)
        try copy.write("intel-rapl:0", "energy_uj", "garbage\n")
        try copy.write("intel-rapl:0:0", "energy_uj", "-5\n")
        try copy.write("intel-rapl:0:1", "max_energy_range_uj", "\n")
        try copy.write("intel-rapl:1", "energy_uj", "99999999999999999999999\n")
        let reading = try RAPLReader(root: copy.root).read()
        let package = try #require(reading.zone("intel-rapl:0"))
        #expect(package.energyMicrojoules == nil)
        #expect(package.energyUnknown == .unparseable(path: "/sys/class/powercap/intel-rapl:0/energy_uj", text: "garbage"))
        #expect(package.energyUnknown?.description == "/sys/class/powercap/intel-rapl:0/energy_uj: parse error: not a counter: \"garbage\"")
        #expect(package.maxRangeMicrojoules == RAPLFixtures.intelRange)
        #expect(reading.zone("intel-rapl:0:0")?.energyUnknown == .unparseable(path: "/sys/class/powercap/intel-rapl:0:0/energy_uj", text: "-5"))
        #expect(reading.zone("intel-rapl:0:1")?.maxRangeUnknown == .unparseable(path: "/sys/class/powercap/intel-rapl:0:1/max_energy_range_uj", text: ""))
        #expect(reading.zone("intel-rapl:0:1")?.maxRangeMicrojoules == nil)
        #expect(reading.zone("intel-rapl:1")?.energyMicrojoules == nil)
        #expect(RAPLHostDomains.select(from: reading) == nil)
    }

    @Test func failedReadKeepsTheErrno() throws {
        let copy = try RAPLFixtures.Copy(RAPLFixtures.xps)
        let file = copy.path + "/sys/class/powercap/intel-rapl:1/energy_uj"
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: ".no-data")
        let reading = try RAPLReader(root: copy.root).read()
        #expect(reading.zone("intel-rapl:1")?.energyUnknown == .readFailed(path: "/sys/class/powercap/intel-rapl:1/energy_uj", errno: .noEntry))
        // psys unreadable: the packages measure the host instead.
        #expect(RAPLHostDomains.select(from: reading) == RAPLHostDomains(basis: .package, zoneIDs: ["intel-rapl:0"]))
    }

    @Test func zoneNames() {
        #expect(RAPLReader.indices("intel-rapl:0") == [0])
        #expect(RAPLReader.indices("intel-rapl:0:12") == [0, 12])
        #expect(RAPLReader.indices("intel-rapl") == nil)
        #expect(RAPLReader.indices("intel-rapl-mmio:0") == nil)
        #expect(RAPLReader.indices("intel-rapl:") == nil)
        #expect(RAPLReader.indices("intel-rapl:0:") == nil)
        #expect(RAPLReader.indices("intel-rapl:x") == nil)
        #expect(RAPLZone.Kind(name: "package-1-die-0") == .package)
        #expect(RAPLZone.Kind(name: "psys") == .psys)
        #expect(RAPLZone.Kind(name: "gpu") == .other)
        #expect(RAPLZone.Kind(name: nil) == .other)
    }
}
