import Foundation
import Testing

/// The two device sources must yield the same snapshots for the same tree: every fixture is
/// read as a tree (`--root`) and through libudev under umockdev, subsystem by subsystem,
/// attribute by attribute (failed reads included).
@Suite struct DeviceAgreementCLITests {
    static let subsystems = ["power_supply", "thermal", "hwmon", "dmi"]

    static var cases: [(String, String)] {
        StatusCLITests.fixtureNames.flatMap { fixture in subsystems.map { (fixture, $0) } }
    }

    @Test(arguments: cases)
    func snapshotsAgree(_ fixture: String, _ subsystem: String) async throws {
        let root = StatusCLITests.fixture(fixture)
        let direct = try await CLIHarness.run(["devices", subsystem, "--root", root])
        #expect(direct.status == 0, "stderr: \(direct.stderr)")
        let live = try await CLIHarness.run(
            ["devices", subsystem],
            environment: ["UMOCKDEV_DIR": root, "LD_PRELOAD": "libumockdev-preload.so.0"])
        #expect(live.status == 0, "stderr: \(live.stderr)")
        let a = try #require(try JSONSerialization.jsonObject(with: Data(direct.stdout.utf8)) as? [[String: Any]])
        let b = try #require(try JSONSerialization.jsonObject(with: Data(live.stdout.utf8)) as? [[String: Any]])
        #expect(a.map { $0["syspath"] as? String } == b.map { $0["syspath"] as? String })
        for (x, y) in zip(a, b) {
            #expect(try StatusCLITests.canonical(x["attributes"] ?? [:]) == StatusCLITests.canonical(y["attributes"] ?? [:]),
                    "\(x["syspath"] ?? "?")")
        }
    }

    @Test func fixturesHaveDevicesInEverySubsystemTheyClaim() async throws {
        // Guards against a vacuous agreement: the ThinkPad tree has devices in all four.
        let root = StatusCLITests.fixture("thinkpad-t480-two-batteries-discharging")
        for subsystem in Self.subsystems {
            let result = try await CLIHarness.run(["devices", subsystem, "--root", root])
            let list = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any]
            #expect((list?.count ?? 0) > 0, "\(subsystem)")
        }
    }
}
