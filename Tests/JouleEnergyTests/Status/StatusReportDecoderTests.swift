import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
import JouleTesting
import Testing

/// `StatusReport(json:)` reads back everything `StatusReport.json` writes, and names the key
/// of a malformed reply.
@Suite struct StatusReportDecoderTests {
    static let fixtures = PackageRoot.url.appendingPathComponent("hw-fixtures").path

    static var fixtureNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures)) ?? []).filter {
            FileManager.default.fileExists(atPath: "\(fixtures)/\($0)/sys")
        }.sorted()
    }

    static func report(_ name: String) throws -> StatusReport {
        let root = "\(fixtures)/\(name)"
        return try StatusReport.collect(source: SysfsDeviceSource(root: root), procRoot: root, lowPowerOverride: .auto)
    }

    @Test func thereAreFixtures() { #expect(Self.fixtureNames.count >= 10) }

    @Test(arguments: fixtureNames)
    func everyFixtureRoundTrips(_ name: String) throws {
        let report = try Self.report(name)
        let text = JSONValue.object(report.json).serialized
        let decoded = try StatusReport(json: text)
        #expect(JSONValue.object(decoded.json).serialized == text)
        #expect(decoded.supplies.batteries.map(\.name) == report.supplies.batteries.map(\.name))
        #expect(decoded.lowPowerMode == report.lowPowerMode && decoded.thermalState == report.thermalState)
    }

    /// What only a daemon writes: knob actions of every state, and the source.
    @Test func daemonFieldsRoundTrip() throws {
        var report = try Self.report("thinkpad-t480-two-batteries-discharging")
        report.source = .daemon
        report.lowPowerMode = true
        report.thermalState = .serious
        report.lowPowerActions = [
            KnobOutcome(knob: "platformProfile", path: "/sys/firmware/acpi/platform_profile", original: "balanced", written: "low-power", state: .applied),
            KnobOutcome(knob: "turbo", path: "/sys/devices/system/cpu/intel_pstate/no_turbo", original: nil, written: "1", state: .failed("EACCES")),
            KnobOutcome(knob: "epp", path: "/x", original: "performance", written: "power", state: .foreign),
            KnobOutcome(knob: "boost", path: "/y", original: "1", written: "0", state: .restored),
        ]
        let text = JSONValue.object(report.json).serialized
        let decoded = try StatusReport(json: text)
        #expect(JSONValue.object(decoded.json).serialized == text)
        #expect(decoded.source == .daemon)
        #expect(decoded.lowPowerActions == report.lowPowerActions)
    }

    static func expectError(_ text: String, key: String, _ fragment: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try StatusReport(json: text)
            Issue.record("decoded \(text)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
            #expect(error.description.contains(fragment), "\(error)", sourceLocation: sourceLocation)
        }
    }

    /// The fixture's JSON with `key` of the object at `path` replaced (nil removes it).
    static func mutated(_ edit: (inout [String: Any]) -> Void) throws -> String {
        let report = try Self.report("thinkpad-t480-two-batteries-discharging")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(JSONValue.object(report.json).serialized.utf8)) as? [String: Any])
        edit(&object)
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test func malformedRepliesNameTheKey() throws {
        Self.expectError("[1]", key: "", "expected an object")
        Self.expectError("{", key: "", "invalid JSON")
        Self.expectError(try Self.mutated { $0["source"] = "elsewhere" }, key: "source", "daemon or direct")
        Self.expectError(try Self.mutated { $0["lowPowerActions"] = nil }, key: "lowPowerActions", "missing")
        Self.expectError(try Self.mutated { $0["thermalState"] = "warm" }, key: "thermalState", "\"warm\"")
        Self.expectError(try Self.mutated { $0["lowPowerMode"] = 1 }, key: "lowPowerMode", "true or false")
        Self.expectError(try Self.mutated { $0["onBattery"] = false }, key: "onBattery", "disagrees")
        Self.expectError(
            try Self.mutated { object in
                var batteries = object["batteries"] as! [[String: Any]]
                batteries[1]["percentage"] = "half"
                object["batteries"] = batteries
            }, key: "batteries[1].percentage", "a number or null")
        Self.expectError(
            try Self.mutated { object in
                var zones = object["thermalZones"] as! [[String: Any]]
                zones[0]["trips"] = [["type": "passive", "temperatureC": 90]]
                object["thermalZones"] = zones
            }, key: "thermalZones[0].trips[0].hysteresisC", "missing")
        Self.expectError(
            try Self.mutated { $0["cpu"] = ["cores": 2.5, "usagePercent": NSNull()] }, key: "cpu.cores", "an integer")
        Self.expectError(
            try Self.mutated {
                $0["lowPowerActions"] = [["knob": "turbo", "path": "/p", "original": NSNull(), "written": "1", "state": "broken"]]
            }, key: "lowPowerActions[0].state", "failed: REASON")
    }
}
