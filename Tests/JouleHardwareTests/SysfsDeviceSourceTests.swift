import Foundation
import Testing

@testable import JouleHardware

/// The fixture source on trees built in temporary directories.
@Suite struct SysfsDeviceSourceTests {
    final class Tree {
        let root: String
        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("joule-sysfs-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: root + "/sys/class", withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }

        @discardableResult
        func device(_ devpath: String, subsystem: String, files: [String: String]) throws -> String {
            let fm = FileManager.default
            let dir = root + "/sys/" + devpath
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try fm.createDirectory(atPath: root + "/sys/class/" + subsystem, withIntermediateDirectories: true)
            let name = (devpath as NSString).lastPathComponent
            try fm.createSymbolicLink(atPath: root + "/sys/class/\(subsystem)/\(name)", withDestinationPath: "../../" + devpath)
            for (file, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/" + file)) }
            return dir
        }
    }

    @Test func readsAttributesPropertiesAndSyspath() throws {
        let tree = try Tree()
        let dir = try tree.device("devices/LNXSYSTM:00/PNP0C0A:00/power_supply/BAT0", subsystem: "power_supply", files: [
            "type": "Battery\n", "capacity": "  80 \n", "uevent": "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_STATUS=Full\n",
        ])
        try FileManager.default.createDirectory(atPath: dir + "/power", withIntermediateDirectories: true)
        try Data("auto\n".utf8).write(to: URL(fileURLWithPath: dir + "/power/control"))
        try FileManager.default.createSymbolicLink(atPath: dir + "/subsystem", withDestinationPath: "../../../../../class/power_supply")
        try FileManager.default.createSymbolicLink(atPath: dir + "/device", withDestinationPath: "../../gone")

        let devices = try SysfsDeviceSource(root: tree.root).devices(subsystem: "power_supply")
        let device = try #require(devices.first)
        #expect(devices.count == 1)
        #expect(device.sysname == "BAT0")
        #expect(device.syspath == "/sys/devices/LNXSYSTM:00/PNP0C0A:00/power_supply/BAT0")
        #expect(device.string("capacity") == "80")
        #expect(device.string("type") == "Battery")
        #expect(device.attributes["uevent"] == nil)
        #expect(device.attributes["power"] == nil)
        #expect(device.attributes["subsystem"] == nil)
        #expect(device.properties["POWER_SUPPLY_STATUS"] == "Full")
        #expect(device.properties["DEVPATH"] == "/devices/LNXSYSTM:00/PNP0C0A:00/power_supply/BAT0")
    }

    @Test func writeOnlyAttributesAreSkippedAndDanglingLinksFail() throws {
        let tree = try Tree()
        let dir = try tree.device("devices/virtual/thermal/thermal_zone0", subsystem: "thermal", files: [
            "type": "acpitz\n", "emul_temp": "",
        ])
        #expect(chmod(dir + "/emul_temp", 0o200) == 0)
        try FileManager.default.createSymbolicLink(atPath: dir + "/temp", withDestinationPath: ".no-data")
        let device = try #require(try SysfsDeviceSource(root: tree.root).devices(subsystem: "thermal").first)
        #expect(device.attributes["emul_temp"] == nil)
        #expect(device.attributes["temp"] == .failed(.noEntry))
    }

    @Test func invalidUTF8IsReplacedAndNULEndsTheValue() throws {
        let tree = try Tree()
        let dir = try tree.device("devices/BAT0", subsystem: "power_supply", files: [:])
        try Data([0x41, 0xFF, 0x42, 0x0A]).write(to: URL(fileURLWithPath: dir + "/model_name"))
        try Data([0x31, 0x32, 0x00, 0x39]).write(to: URL(fileURLWithPath: dir + "/capacity"))
        let device = try #require(try SysfsDeviceSource(root: tree.root).devices(subsystem: "power_supply").first)
        #expect(device.string("model_name") == "A\u{FFFD}B")
        #expect(device.string("capacity") == "12")
    }

    @Test func linksLeadingOutsideDevicesAreIgnored() throws {
        let tree = try Tree()
        try FileManager.default.createDirectory(atPath: tree.root + "/sys/class/power_supply", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: tree.root + "/sys/class/power_supply/EVIL", withDestinationPath: "/etc")
        try FileManager.default.createSymbolicLink(atPath: tree.root + "/sys/class/power_supply/GONE", withDestinationPath: "../../devices/nowhere")
        #expect(try SysfsDeviceSource(root: tree.root).devices(subsystem: "power_supply").isEmpty)
    }

    @Test func absentSubsystemIsEmptyAndMissingRootThrows() throws {
        let tree = try Tree()
        #expect(try SysfsDeviceSource(root: tree.root).devices(subsystem: "hwmon").isEmpty)
        #expect(throws: HardwareError.self) {
            try SysfsDeviceSource(root: tree.root + "/missing").devices(subsystem: "power_supply")
        }
    }

    @Test func readerAppliesTheMacBookQuirkFromDMI() throws {
        let tree = try Tree()
        try tree.device("devices/BAT0", subsystem: "power_supply", files: [
            "type": "Battery\n", "status": "Discharging\n", "capacity": "60\n",
            "energy_now": "48000000\n", "energy_full": "60000000\n",
        ])
        try tree.device("devices/virtual/dmi/id", subsystem: "dmi", files: ["product_name": "MacBookPro11,1\n"])
        let supplies = try PowerSupplyReader(source: SysfsDeviceSource(root: tree.root)).read()
        #expect(supplies.batteries.first?.percentage == 80)
    }
}
