import Foundation
@testable import JouleHardware
@testable import JouleEnergy
import JouleTesting
import Testing


/// UPower's own integration-test expectations (Tests/Conformance/upower-battery-cases.json,
/// see its README), replayed through joule's fixture reader and power-supply parser: each case
/// becomes a sysfs tree in a temporary directory, laid out as umockdev lays out UPower's testbed.
@Suite struct UPowerConformanceTests {
    static let file = PackageRoot.url.appendingPathComponent("Tests/Conformance/upower-battery-cases.json")

    /// Each case as its own JSON bytes, keyed by name (Data is Sendable, [String: Any] is not).
    static let cases: [(name: String, data: Data)] = {
        guard let data = try? Data(contentsOf: file),
            let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        else { return [] }
        return list.compactMap { item in
            guard let name = item["name"] as? String,
                let bytes = try? JSONSerialization.data(withJSONObject: item)
            else { return nil }
            return (name, bytes)
        }
    }()

    static var names: [String] { cases.map(\.name) }

    @Test func allFortyCasesAreLoaded() {
        #expect(Self.cases.count == 40)
    }

    @Test(arguments: names)
    func upowerCase(_ name: String) throws {
        let data = try #require(Self.cases.first { $0.name == name }?.data)
        let testCase = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let root = try TemporaryTree()
        defer { root.remove() }
        try root.build(testCase)

        let supplies = try PowerSupplyReader(source: SysfsDeviceSource(root: root.path)).read()
        let expect = try #require(testCase["expect"] as? [String: Any])
        let nullOk = Set(testCase["nullOk"] as? [String] ?? [])

        if let onBattery = expect["onBattery"] as? Bool {
            #expect(supplies.onBattery == onBattery, "onBattery")
        }
        if let names = expect["deviceNames"] as? [String] {
            var listed = Set(supplies.batteries.map(\.name))
            listed.formUnion(supplies.peripherals.map(\.name))
            listed.formUnion(supplies.lineSources.map(\.name))
            #expect(listed.sorted() == names.sorted(), "deviceNames")
        }
        for (batteryName, fields) in expect["batteries"] as? [String: [String: Any]] ?? [:] {
            guard let battery = supplies.batteries.first(where: { $0.name == batteryName }) else {
                #expect(nullOk.contains("batteries.\(batteryName)"), "battery \(batteryName) missing")
                continue
            }
            check(battery, fields, path: "batteries.\(batteryName)", nullOk: nullOk)
        }
        for (peripheralName, fields) in expect["peripherals"] as? [String: [String: Any]] ?? [:] {
            let peripheral = try #require(
                supplies.peripherals.first { $0.name == peripheralName }, "peripheral \(peripheralName) missing")
            check(peripheral, fields, path: "peripherals.\(peripheralName)", nullOk: nullOk)
        }
        for (lineName, fields) in expect["lineSources"] as? [String: [String: Any]] ?? [:] {
            let line = try #require(supplies.lineSources.first { $0.name == lineName }, "line source \(lineName) missing")
            if let online = fields["online"] as? Bool { #expect(line.online == online, "\(lineName).online") }
        }
        if let composite = expect["composite"] as? [String: Any] {
            checkComposite(supplies, composite, nullOk: nullOk)
        }
    }

    func checkComposite(_ supplies: PowerSupplies, _ fields: [String: Any], nullOk: Set<String>) {
        if let level = fields["warningLevel"] as? String {
            #expect(BatteryWarningLevel.evaluate(supplies.composite).rawValue == level, "composite.warningLevel")
        }
        if let present = fields["isPresent"] as? Bool {
            #expect((supplies.composite != nil) == present, "composite.isPresent")
        }
        guard fields["state"] != nil || fields["percentage"] != nil else { return }
        guard let composite = supplies.composite else {
            #expect(nullOk.contains("composite"), "composite missing")
            return
        }
        if let state = fields["state"] as? String {
            #expect(composite.state.rawValue == state, "composite.state")
        }
        if let percentage = fields["percentage"] as? Double {
            expectNumber(composite.percentage, percentage, path: "composite.percentage", nullOk: nullOk)
        }
    }

    func check(_ battery: Battery, _ fields: [String: Any], path: String, nullOk: Set<String>) {
        for (key, value) in fields {
            let fieldPath = "\(path).\(key)"
            switch key {
            case "state": #expect(battery.state.rawValue == value as? String, "\(fieldPath)")
            case "model": #expect(battery.model == value as? String, "\(fieldPath)")
            case "manufacturer": #expect(battery.manufacturer == value as? String, "\(fieldPath)")
            case "serial": #expect(battery.serial == value as? String, "\(fieldPath)")
            case "cycleCount": #expect(battery.cycleCount == value as? Int, "\(fieldPath)")
            case "percentage": expectNumber(battery.percentage, value as? Double, path: fieldPath, nullOk: nullOk)
            case "energyWh": expectNumber(battery.energyWh, value as? Double, path: fieldPath, nullOk: nullOk)
            case "energyFullWh": expectNumber(battery.energyFullWh, value as? Double, path: fieldPath, nullOk: nullOk)
            case "energyFullDesignWh":
                expectNumber(battery.energyFullDesignWh, value as? Double, path: fieldPath, nullOk: nullOk)
            case "energyRateW": expectNumber(battery.energyRateW, value as? Double, path: fieldPath, nullOk: nullOk)
            case "voltageV": expectNumber(battery.voltageV, value as? Double, path: fieldPath, nullOk: nullOk)
            case "temperatureC":
                // UPower writes 0.0 for "no temp attribute"; joule says nil. Only that pairing
                // is accepted as equal; a real temperature must match.
                if battery.temperatureC == nil, (value as? Double) == 0 { continue }
                expectNumber(battery.temperatureC, value as? Double, path: fieldPath, nullOk: nullOk)
            default:
                Issue.record("unhandled expectation \(fieldPath)")
            }
        }
    }

    func expectNumber(_ actual: Double?, _ expected: Double?, path: String, nullOk: Set<String>) {
        guard let expected else {
            #expect(actual == nil, "\(path) should be null")
            return
        }
        guard let actual else {
            #expect(nullOk.contains(path), "\(path) is null, expected \(expected)")
            return
        }
        #expect(actual.isFinite && abs(actual - expected) < 0.01, "\(path): \(actual) != \(expected)")
    }
}

/// A temporary sysfs root built from one conformance case.
struct TemporaryTree {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("joule-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    func build(_ testCase: [String: Any]) throws {
        for device in testCase["devices"] as? [[String: Any]] ?? [] {
            let name = try #require(device["name"] as? String)
            // Where UPower's testbed puts it: the dump's path, below its parent, or under /sys/devices.
            let devpath: String
            if let sysfsPath = device["sysfsPath"] as? String {
                devpath = String(sysfsPath.drop { $0 == "/" })
            } else if let parent = device["parent"] as? String {
                devpath = "sys" + parent + "/power_supply/" + name
            } else {
                devpath = "sys/devices/" + name
            }
            var attributes: [String: Data] = [:]
            for (key, value) in device["attributes"] as? [String: String] ?? [:] { attributes[key] = Data(value.utf8) }
            for (key, hex) in device["attributesHex"] as? [String: String] ?? [:] { attributes[key] = try Self.bytes(hex: hex) }
            try addDevice(devpath: devpath, subsystem: "power_supply", attributes: attributes,
                          properties: device["properties"] as? [String: String] ?? [:])
        }
        if let dmi = testCase["dmi"] as? [String: String] {
            try addDevice(devpath: "sys/devices/virtual/dmi/id", subsystem: "dmi",
                          attributes: dmi.mapValues { Data(($0 + "\n").utf8) }, properties: [:])
        }
    }

    func addDevice(devpath: String, subsystem: String, attributes: [String: Data], properties: [String: String]) throws {
        let fm = FileManager.default
        let directory = path + "/" + devpath
        try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let classDirectory = path + "/sys/class/" + subsystem
        try fm.createDirectory(atPath: classDirectory, withIntermediateDirectories: true)
        let name = (devpath as NSString).lastPathComponent
        let depth = devpath.split(separator: "/").count - 1  // levels below the tree root's sys/
        try fm.createSymbolicLink(
            atPath: classDirectory + "/" + name,
            withDestinationPath: "../../" + devpath.dropFirst("sys/".count))
        try fm.createSymbolicLink(
            atPath: directory + "/subsystem",
            withDestinationPath: String(repeating: "../", count: depth) + "class/" + subsystem)
        for (key, value) in attributes {
            try value.write(to: URL(fileURLWithPath: directory + "/" + key))
        }
        let uevent = properties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)\n" }.joined()
        try Data(uevent.utf8).write(to: URL(fileURLWithPath: directory + "/uevent"))
    }

    static func bytes(hex: String) throws -> Data {
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = try #require(hex.index(index, offsetBy: 2, limitedBy: hex.endIndex))
            data.append(try #require(UInt8(hex[index..<next], radix: 16)))
            index = next
        }
        return data
    }
}
