import Foundation
import JouleHardware
import JouleTesting
import Testing

/// The bad-input matrix: one row per kind of damage a sensor, a radio, a file or a user can
/// hand Joule, with the outcome it must give. A row passes only with that exact outcome; a
/// crash (exit by signal) or a hang (killed after `BadInputRun.timeout`) fails every row.
/// Sysfs, /proc/stat, btsnoop, HCI bytes, regions, policies and arguments go through the
/// built `joule` binary; /proc/PID/stat goes through the library (no command reads it from
/// a root).
struct BadInputCase: Sendable, CustomTestStringConvertible {
    /// How the input is made before joule runs.
    enum Setup: Sendable {
        case none
        /// A copy of a fixture, with files under it rewritten (relative path -> contents;
        /// nil removes the file). Paths through symlinks resolve inside the copy.
        case fixture(String, edits: [(path: String, contents: String?)])
        /// A copy of a fixture with `paths` replaced by symlinks to a file that does not exist
        /// (a read fails, as ENODATA does on a real battery).
        case danglingLink(String, paths: [String])
        /// A file of these bytes.
        case file([UInt8])
        /// A btsnoop capture (H4 datalink) holding these HCI event packets.
        case events([[UInt8]])
    }

    /// What joule must do.
    enum Outcome: Sendable {
        /// Exit status, and a substring of stderr (empty: anything).
        case exits(Int32, stderr: String)
        /// Exit 0 and this JSON value at a path like `batteries.0.energyWh` of stdout.
        case json(path: String, equals: String)
        /// Exit 0, this many stdout lines, and a substring of stderr (empty: stderr empty).
        case lines(Int, stderr: String)
    }

    var name: String
    var setup: Setup
    /// `{ROOT}` is the prepared tree, `{FILE}` the prepared file.
    var arguments: [String]
    var outcome: Outcome
    var environment: [String: String] = [:]

    var testDescription: String { name }
}

/// /proc/PID/stat rows: the bytes and what the decoder (or the sampler) must make of them.
struct ProcStatCase: Sendable, CustomTestStringConvertible {
    enum Outcome: Sendable {
        case error(ProcessStatParseError)
        /// Parsed, with this pid, command name, utime and stime.
        case parsed(pid: Int32, comm: String, utime: UInt64, stime: UInt64)
    }
    var name: String
    var bytes: [UInt8]
    var outcome: Outcome
    var testDescription: String { name }
}

enum BadInputRun {
    static let timeout: TimeInterval = 30
    static let fixture = "lenovo-ideapad-unknown-status-on-ac"
    static let battery = "sys/class/power_supply/BAT0"
    static let zone = "sys/class/thermal/thermal_zone0"
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    /// Runs joule to its end on a thread of its own, interrupting it after `timeout` seconds
    /// (then killing it 2 s later).
    static func run(_ arguments: [String], environment: [String: String]) async throws -> Program.Result {
        try await Program.run(
            CLIHarness.binary, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
            timeout: timeout)
    }

    /// A temporary directory holding a copy of `fixture` (symlinks kept).
    static func copyFixture(_ fixture: String) async throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("joule-matrix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let copy = try await Program.run("/bin/cp", ["-a", CLIHarness.fixturesDirectory.appendingPathComponent(fixture).path + "/.", dir.path])
        #expect(copy.status == 0, "\(copy.stderr)")
        return dir
    }

    /// `path` under `root`, with symlinked directories resolved inside the tree.
    static func resolve(_ path: String, in root: URL) -> URL {
        let file = root.appendingPathComponent(path)
        let parent = file.deletingLastPathComponent().resolvingSymlinksInPath()
        return parent.appendingPathComponent(file.lastPathComponent)
    }

    /// A btsnoop v1 capture (datalink 1002, H4) of received HCI event packets, 10 ms apart.
    static func btsnoop(events: [[UInt8]]) -> [UInt8] {
        var bytes = Array("btsnoop\0".utf8)
        bytes += be32(1) + be32(1002)
        // Microseconds since year 0, as btsnoop counts: Unix 1700000000 s.
        let epoch: UInt64 = 0x00DC_DDB3_0F2F_8000 + 1_700_000_000_000_000
        for (index, event) in events.enumerated() {
            let packet = [UInt8(0x04)] + event
            bytes += be32(UInt32(packet.count)) + be32(UInt32(packet.count)) + be32(1) + be32(0)
            let time = epoch + UInt64(index) * 10_000
            bytes += be32(UInt32(time >> 32)) + be32(UInt32(time & 0xFFFF_FFFF))
            bytes += packet
        }
        return bytes
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    /// The JSON value at a dotted path (array indices as numbers), re-serialized.
    static func value(at path: String, in text: String) -> String? {
        guard let data = text.data(using: .utf8),
            var node = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return nil }
        for key in path.split(separator: ".") {
            if let index = Int(key), let array = node as? [Any], index < array.count {
                node = array[index]
            } else if let object = node as? [String: Any], let next = object[String(key)] {
                node = next
            } else {
                return nil
            }
        }
        if node is NSNull { return "null" }
        if let string = node as? String { return "\"\(string)\"" }
        if let number = node as? NSNumber { return "\(number)" }
        return node is [Any] ? "[array]" : "{object}"
    }
}

// MARK: - Byte builders for HCI rows

enum MatrixBytes {
    static let address: [UInt8] = [0x01, 0x03, 0x00, 0xEE, 0xFF, 0xC0]

    /// Flags + an iBeacon manufacturer structure (30 bytes of AD data).
    static var iBeaconAD: [UInt8] {
        let uuid: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]
        return [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + uuid + [0x00, 0x03, 0x00, 0x01, 0xC5]
    }

    static func legacyReport(_ data: [UInt8], length: Int? = nil) -> [UInt8] {
        [0x00, 0x00] + address + [UInt8(length ?? data.count)] + data + [0xC4]
    }

    /// LE Meta (0x3E), subevent 0x02, with `num_reports` as given (it may lie).
    static func legacyEvent(_ reports: [[UInt8]], num: Int? = nil, declaredLength: Int? = nil) -> [UInt8] {
        let parameters: [UInt8] = [0x02, UInt8(num ?? reports.count)] + reports.flatMap { $0 }
        return [0x3E, UInt8(declaredLength ?? parameters.count)] + parameters
    }

    /// LE Meta subevent 0x0D with one report whose data_length is `length`.
    static func extendedEvent(_ data: [UInt8], length: Int) -> [UInt8] {
        var report: [UInt8] = [0x13, 0x00, 0x00] + address
        report += [0x01, 0x00, 0xFF, 0x7F, 0xC4, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        report += [UInt8(length)] + data
        let parameters: [UInt8] = [0x0D, 0x01] + report
        return [0x3E, UInt8(parameters.count)] + parameters
    }

    static func eddystone(_ frame: [UInt8]) -> [UInt8] {
        [0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE, UInt8(frame.count + 3), 0x16, 0xAA, 0xFE] + frame
    }
}

// MARK: - The rows

extension BadInputCase {
    static let f = BadInputRun.fixture
    static let bat = BadInputRun.battery
    static let zone = BadInputRun.zone
    static let status = ["status", "--json", "--root", "{ROOT}"]
    static let scan = ["beacons", "scan", "--json", "--replay", "{FILE}"]
    static let monitor = ["beacons", "monitor", "--json", "--replay", "{FILE}"]

    static func battery(
        _ name: String, _ file: String, _ contents: String?, _ field: String, _ expected: String, capacity: String?? = .none
    ) -> BadInputCase {
        var edits: [(path: String, contents: String?)] = [("\(bat)/\(file)", contents)]
        if case .some(let capacity) = capacity { edits.append(("\(bat)/capacity", capacity)) }
        return BadInputCase(
            name: "sysfs: \(name)", setup: .fixture(f, edits: edits),
            arguments: status, outcome: .json(path: "batteries.0.\(field)", equals: expected))
    }

    static func thermal(_ name: String, _ contents: String?) -> BadInputCase {
        BadInputCase(
            name: "sysfs: \(name)", setup: .fixture(f, edits: [("\(zone)/temp", contents)]),
            arguments: status, outcome: .json(path: "thermalZones.0.temperatureC", equals: "null"))
    }

    static func procStat(_ name: String, _ contents: String, _ outcome: Outcome) -> BadInputCase {
        BadInputCase(name: "/proc/stat: \(name)", setup: .fixture(f, edits: [("proc/stat", contents)]), arguments: status, outcome: outcome)
    }

    static func snoop(_ name: String, _ bytes: [UInt8], _ outcome: Outcome) -> BadInputCase {
        BadInputCase(name: "btsnoop: \(name)", setup: .file(bytes), arguments: scan, outcome: outcome)
    }

    static func hci(_ name: String, _ events: [[UInt8]], _ outcome: Outcome) -> BadInputCase {
        BadInputCase(name: "HCI: \(name)", setup: .events(events), arguments: scan, outcome: outcome)
    }

    static func region(_ name: String, _ spec: String, _ message: String) -> BadInputCase {
        BadInputCase(
            name: "region: \(name)", setup: .events([MatrixBytes.legacyEvent([MatrixBytes.legacyReport(MatrixBytes.iBeaconAD)])]),
            arguments: monitor + ["--region", spec], outcome: .exits(2, stderr: message))
    }

    static func policy(_ name: String, _ yaml: String, _ message: String) -> BadInputCase {
        BadInputCase(
            name: "policy: \(name)", setup: .file(Array(yaml.utf8)),
            arguments: ["enforce", "--policy", "{FILE}", "--root", CLIHarness.fixturesDirectory.appendingPathComponent(f).path, "--dry-run"],
            outcome: .exits(2, stderr: message))
    }

    static func arguments(_ name: String, _ arguments: [String], _ message: String) -> BadInputCase {
        BadInputCase(name: "arguments: \(name)", setup: .none, arguments: arguments, outcome: .exits(2, stderr: message))
    }

    static let snoopHeader = Array("btsnoop\0".utf8) + BadInputRun.be32(1) + BadInputRun.be32(1002)
    static let goodEvent = MatrixBytes.legacyEvent([MatrixBytes.legacyReport(MatrixBytes.iBeaconAD)])
    static let goodCapture = BadInputRun.btsnoop(events: [goodEvent])

    static let all: [BadInputCase] = [
        // sysfs: the battery's attribute files
        // With capacity also unreadable nothing is left to infer the energy from: null.
        battery("energy_now garbage", "energy_now", "abc", "energyWh", "null", capacity: ""),
        battery("energy_now empty", "energy_now", "", "energyWh", "null", capacity: ""),
        battery("energy_now NaN", "energy_now", "NaN", "energyWh", "null", capacity: "garbage"),
        battery("energy_now -NaN", "energy_now", "-NaN", "energyWh", "null", capacity: "-NaN"),
        battery("energy_now beyond the kernel's int", "energy_now", "999999999999999999999999999999", "energyWh", "null", capacity: ""),
        battery("energy_now and capacity missing", "energy_now", nil, "energyWh", "null", capacity: .some(nil)),
        // UPower's rule: an unusable energy_now is inferred from capacity × energy_full (72 % of 56.5 Wh).
        battery("energy_now garbage, capacity valid: inferred", "energy_now", "abc", "energyWh", "40.68"),
        battery("energy_full beyond the kernel's int", "energy_full", "99999999999", "energyFullWh", "null"),
        // UPower's rule: a full figure below the current amount is stale and raised to it.
        battery("energy_full zero: raised to energy_now", "energy_full", "0", "energyFullWh", "40.68"),
        battery("power_now beyond 300 W", "power_now", "-400000000", "energyRateW", "null"),
        battery("capacity above 100 clamped", "capacity", "250", "percentage", "100"),
        battery("voltage_now inf", "voltage_now", "inf", "voltageV", "null"),
        // capacity unusable: the percentage comes from energy_now / energy_full (40.68 / 56.5).
        battery("capacity garbage", "capacity", "lots", "percentage", "72"),
        battery("status unknown word", "status", "Exploding", "state", "\"unknown\""),
        battery("cycle_count negative", "cycle_count", "-1", "cycleCount", "null"),
        battery("cycle_count garbage", "cycle_count", "0x7fffffff", "cycleCount", "null"),
        BadInputCase(
            name: "sysfs: energy_now and capacity dangling links (reads fail like ENODATA)",
            setup: .danglingLink(f, paths: ["\(bat)/energy_now", "\(bat)/capacity"]), arguments: status,
            outcome: .json(path: "batteries.0.energyWh", equals: "null")),
        BadInputCase(
            name: "sysfs: battery directory a dangling link",
            setup: .danglingLink(f, paths: [bat]), arguments: status,
            outcome: .json(path: "batteries.0", equals: "absent")),
        // sysfs: thermal millidegrees
        thermal("temp garbage", "warm"),
        thermal("temp empty", ""),
        thermal("temp 0x7fffffff placeholder", "2147483647"),
        thermal("temp below absolute zero", "-274000"),
        thermal("temp beyond Int", "99999999999999999999999"),
        thermal("temp missing", nil),
        BadInputCase(
            name: "sysfs: temp a dangling link", setup: .danglingLink(f, paths: ["\(zone)/temp"]), arguments: status,
            outcome: .json(path: "thermalZones.0.temperatureC", equals: "null")),
        BadInputCase(
            name: "sysfs: --root does not exist", setup: .none,
            arguments: ["status", "--json", "--root", "/nonexistent/joule-matrix"], outcome: .exits(2, stderr: "/nonexistent/joule-matrix")),
        // /proc/stat under --root
        procStat("truncated cpu line", "cpu  1 2 3\n", .json(path: "cpu.usagePercent", equals: "null")),
        procStat("empty", "", .json(path: "cpu.usagePercent", equals: "null")),
        procStat("garbage counters", "cpu  a b c d e f g h\ncpu0 1 2 3 4 5 6 7 8\n", .json(path: "cpu.usagePercent", equals: "null")),
        procStat("a core listed twice", "cpu  1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\ncpu0 9 9 9 9 9 9 9 9\n", .json(path: "cpu.usagePercent", equals: "null")),
        BadInputCase(
            name: "/proc/stat: missing", setup: .fixture(f, edits: [("proc/stat", nil)]), arguments: status,
            outcome: .json(path: "cpu.usagePercent", equals: "null")),
        // btsnoop files
        snoop("bad magic", Array("btsnoo\0\0".utf8) + BadInputRun.be32(1) + BadInputRun.be32(1002), .exits(2, stderr: "bad magic")),
        snoop("empty file", [], .exits(2, stderr: "shorter than the 16-byte header")),
        snoop("truncated header", Array(snoopHeader.prefix(10)), .exits(2, stderr: "shorter than the 16-byte header")),
        snoop("unknown datalink", Array("btsnoop\0".utf8) + BadInputRun.be32(1) + BadInputRun.be32(9999), .exits(2, stderr: "9999")),
        snoop("unsupported version", Array("btsnoop\0".utf8) + BadInputRun.be32(2) + BadInputRun.be32(1002), .exits(2, stderr: "version")),
        snoop("truncated record", Array(goodCapture.dropLast(5)), .lines(0, stderr: "truncated record")),
        snoop("truncated record header", goodCapture + Array(repeating: 0, count: 10), .lines(1, stderr: "truncated record header")),
        snoop(
            "zero-length record", snoopHeader + BadInputRun.be32(0) + BadInputRun.be32(0) + BadInputRun.be32(1) + BadInputRun.be32(0)
                + BadInputRun.be32(0x00DC_DDB3) + BadInputRun.be32(0x0F2F_8000) + Array(goodCapture.dropFirst(16)),
            .lines(1, stderr: "")),
        snoop(
            "huge length field", snoopHeader + BadInputRun.be32(0xFFFF_FFFF) + BadInputRun.be32(0xFFFF_FFFF)
                + Array(repeating: 0, count: 16), .lines(0, stderr: "not plausible")),
        BadInputCase(
            name: "btsnoop: file does not exist", setup: .none,
            arguments: ["beacons", "scan", "--json", "--replay", "/nonexistent/capture.btsnoop"],
            outcome: .exits(2, stderr: "/nonexistent/capture.btsnoop")),
        // HCI event bytes inside a capture
        hci("num_reports lies (3 claimed, 1 present)", [MatrixBytes.legacyEvent([MatrixBytes.legacyReport(MatrixBytes.iBeaconAD)], num: 3)], .lines(1, stderr: "record 0")),
        hci("num_reports zero", [MatrixBytes.legacyEvent([], num: 0)], .lines(0, stderr: "")),
        hci(
            "data_length past the end of the event", [MatrixBytes.legacyEvent([MatrixBytes.legacyReport(Array(MatrixBytes.iBeaconAD.prefix(10)), length: 30)])],
            .lines(0, stderr: "record 0")),
        hci("legacy data_length over 31", [MatrixBytes.legacyEvent([MatrixBytes.legacyReport(MatrixBytes.iBeaconAD + [0, 0])])], .lines(0, stderr: "data_length")),
        hci("AD structure length past its data", [MatrixBytes.legacyEvent([MatrixBytes.legacyReport([0x02, 0x01, 0x06, 0x1F, 0xFF, 0x4C, 0x00])])], .lines(0, stderr: "")),
        hci("zero-length AD data", [MatrixBytes.legacyEvent([MatrixBytes.legacyReport([])])], .lines(0, stderr: "")),
        hci("AD structure of length zero first", [MatrixBytes.legacyEvent([MatrixBytes.legacyReport([0x00] + MatrixBytes.iBeaconAD.prefix(29))])], .lines(0, stderr: "")),
        hci("event length byte larger than the packet", [MatrixBytes.legacyEvent([MatrixBytes.legacyReport(MatrixBytes.iBeaconAD)], declaredLength: 250)], .lines(1, stderr: "record 0")),
        hci("one-byte event", [[0x3E]], .lines(0, stderr: "record 0")),
        hci("extended report data_length past the end", [MatrixBytes.extendedEvent(Array(MatrixBytes.iBeaconAD.prefix(10)), length: 200)], .lines(0, stderr: "record 0")),
        hci("iBeacon manufacturer data cut short", [MatrixBytes.legacyEvent([MatrixBytes.legacyReport([0x02, 0x01, 0x06, 0x0A, 0xFF, 0x4C, 0x00, 0x02, 0x15, 1, 2, 3, 4, 5])])], .lines(0, stderr: "")),
        hci("Eddystone URL with an unknown scheme byte", [MatrixBytes.legacyEvent([MatrixBytes.legacyReport(MatrixBytes.eddystone([0x10, 0xEB, 0x09, 0x61, 0x62]))])], .lines(0, stderr: "")),
        hci("Eddystone TLM of an unknown version", [MatrixBytes.legacyEvent([MatrixBytes.legacyReport(MatrixBytes.eddystone([0x20, 0x07] + Array(repeating: 0, count: 12)))])], .lines(0, stderr: "")),
        hci("Eddystone frame of one byte", [MatrixBytes.legacyEvent([MatrixBytes.legacyReport(MatrixBytes.eddystone([0x00]))])], .lines(0, stderr: "")),
        // region specs
        region("bad UUID", "room=not-a-uuid", "UUID"),
        region("major out of range", "room=\(BadInputRun.uuid):70000", "major"),
        region("minor not a number", "room=\(BadInputRun.uuid):1:x", "minor"),
        region("empty name", "=\(BadInputRun.uuid)", "name"),
        region("too many fields", "room=\(BadInputRun.uuid):1:2:3", "too many ':' fields"),
        BadInputCase(
            name: "region: none given", setup: .events([goodEvent]), arguments: monitor,
            outcome: .exits(2, stderr: "at least one --region")),
        // policy files
        policy("not YAML", "classes: [unclosed\n", "not valid YAML"),
        policy("a mapping expected, a list found", "- 1\n- 2\n", "expected a mapping"),
        policy("empty file", "", "policy"),
        BadInputCase(
            name: "policy: file does not exist", setup: .none,
            arguments: ["enforce", "--policy", "/nonexistent/policy.yaml", "--dry-run"],
            outcome: .exits(2, stderr: "/nonexistent/policy.yaml")),
        // command-line arguments
        arguments("unknown subcommand", ["frobnicate"], "frobnicate"),
        arguments("watch --interval not a number", ["watch", "--interval", "abc"], "interval"),
        arguments("watch --interval negative", ["watch", "--interval", "-1"], "interval"),
        arguments("watch --interval zero", ["watch", "--interval", "0"], "interval"),
        arguments("watch --interval nan", ["watch", "--interval", "nan"], "interval"),
        arguments("watch --interval inf", ["watch", "--interval", "inf"], "interval"),
        arguments("status --root empty", ["status", "--root", ""], "--root"),
        arguments("cpu-monitor --limit negative", ["cpu-monitor", "--limit", "-5", "--dry-run", "--duration", "1"], "limit"),
        arguments("cpu-monitor --action unknown", ["cpu-monitor", "--action", "explode", "--dry-run", "--duration", "1"], "action"),
        arguments("beacons scan --duty garbage", ["beacons", "scan", "--duty", "fast", "--replay", "/dev/null"], "duty"),
        arguments("beacons range --rssi-trim out of range", ["beacons", "range", "--rssi-trim", "0.7", "--region", "a=\(BadInputRun.uuid)", "--replay", "/dev/null"], "rssi-trim"),
        arguments("devices with a path for a subsystem", ["devices", "../etc"], "subsystem"),
        arguments("lowpower with an unknown mode", ["lowpower", "maybe"], "mode"),
    ]
}

extension ProcStatCase {
    static func line(_ text: String) -> [UInt8] { Array(text.utf8) }
    static let tail = " S 1 2 3 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 12345 1000000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n"

    static let all: [ProcStatCase] = [
        ProcStatCase(name: "/proc/PID/stat: empty", bytes: [], outcome: .error(.empty)),
        ProcStatCase(name: "/proc/PID/stat: no parentheses", bytes: line("42 bash S 1 2 3"), outcome: .error(.missingCommand)),
        ProcStatCase(name: "/proc/PID/stat: PID not a number", bytes: line("x4 (bash)" + tail), outcome: .error(.badPID)),
        ProcStatCase(name: "/proc/PID/stat: truncated after the state", bytes: line("42 (bash) S 1 2"), outcome: .error(.truncated(field: 6))),
        ProcStatCase(name: "/proc/PID/stat: cut before utime", bytes: line("42 (bash) S 1 2 3 0 -1 4194560 100 0 0"), outcome: .error(.truncated(field: 13))),
        ProcStatCase(
            name: "/proc/PID/stat: utime beyond UInt64",
            bytes: line("42 (bash) S 1 2 3 0 -1 4194560 100 0 0 0 99999999999999999999999 3 0 0 20 0 1 0 12345\n"),
            outcome: .error(.badNumber(field: 14))),
        ProcStatCase(name: "/proc/PID/stat: utime negative", bytes: line("42 (bash) S 1 2 3 0 -1 4194560 100 0 0 0 -7 3 0 0 20 0 1 0 12345\n"), outcome: .error(.badNumber(field: 14))),
        ProcStatCase(name: "/proc/PID/stat: comm holding \") (\"", bytes: line("42 (a) (b) S 1" + tail.dropFirst(4)), outcome: .parsed(pid: 42, comm: "a) (b", utime: 7, stime: 3)),
        ProcStatCase(name: "/proc/PID/stat: comm of spaces and a newline", bytes: line("42 ( x\ny )" + tail), outcome: .parsed(pid: 42, comm: " x\ny ", utime: 7, stime: 3)),
    ]
}

@Suite struct BadInputMatrixTests {
    @Test(arguments: BadInputCase.all)
    func row(_ row: BadInputCase) async throws {
        var cleanup: URL?
        defer { if let cleanup { try? FileManager.default.removeItem(at: cleanup) } }
        var root = ""
        var file = ""
        switch row.setup {
        case .none:
            break
        case .fixture(let name, let edits):
            let dir = try await BadInputRun.copyFixture(name)
            cleanup = dir
            root = dir.path
            for (path, contents) in edits {
                let target = BadInputRun.resolve(path, in: dir)
                if let contents {
                    try Data(contents.utf8).write(to: target)
                } else {
                    try FileManager.default.removeItem(at: target)
                }
            }
        case .danglingLink(let name, let paths):
            let dir = try await BadInputRun.copyFixture(name)
            cleanup = dir
            root = dir.path
            for path in paths {
                // The link itself is replaced, not what it points to.
                let target = path.contains("/power_supply/BAT0/") || path.contains("thermal_zone0/")
                    ? BadInputRun.resolve(path, in: dir) : dir.appendingPathComponent(path)
                try FileManager.default.removeItem(at: target)
                try FileManager.default.createSymbolicLink(atPath: target.path, withDestinationPath: "/nonexistent/joule-matrix-target")
            }
        case .file(let bytes):
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("joule-matrix-\(UUID().uuidString)")
            try Data(bytes).write(to: url)
            cleanup = url
            file = url.path
        case .events(let events):
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("joule-matrix-\(UUID().uuidString).btsnoop")
            try Data(BadInputRun.btsnoop(events: events)).write(to: url)
            cleanup = url
            file = url.path
        }
        let arguments = row.arguments.map {
            $0.replacingOccurrences(of: "{ROOT}", with: root).replacingOccurrences(of: "{FILE}", with: file)
        }
        let result = try await BadInputRun.run(arguments, environment: row.environment.merging(
            ["JOULE_STATE_DIR": FileManager.default.temporaryDirectory.appendingPathComponent("joule-matrix-state").path]) { a, _ in a })
        #expect(!result.timedOut, "hung: \(arguments)")
        #expect(!result.signalled, "crashed with signal \(result.status): \(result.stderr)")
        switch row.outcome {
        case .exits(let status, let message):
            #expect(result.status == status, "stderr: \(result.stderr)")
            if !message.isEmpty { #expect(result.stderr.contains(message), "stderr: \(result.stderr)") }
        case .json(let path, let expected):
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let found = BadInputRun.value(at: path, in: result.stdout) ?? "absent"
            #expect(found == expected, "\(path) in \(result.stdout.prefix(600))")
        case .lines(let count, let message):
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.count == count, "stdout: \(result.stdout)")
            // Every line printed is a whole JSON object.
            for line in lines {
                #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not JSON: \(line)")
            }
            if message.isEmpty {
                #expect(result.stderr.isEmpty, "stderr: \(result.stderr)")
            } else {
                #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
            }
        }
    }

    @Test(arguments: ProcStatCase.all)
    func procPIDStat(_ row: ProcStatCase) async {
        switch row.outcome {
        case .error(let expected):
            #expect(throws: expected) { try ProcessStat.parse(row.bytes) }
        case .parsed(let pid, let comm, let utime, let stime):
            let stat = try? ProcessStat.parse(row.bytes)
            #expect(stat?.pid == pid)
            #expect(stat?.comm == comm)
            #expect(stat?.utimeTicks == utime)
            #expect(stat?.stimeTicks == stime)
        }
    }

    /// A PID listed in /proc whose stat vanished (the process exited between the listing and
    /// the read) and one whose stat is garbage are skipped, never errors or zero samples.
    @Test func samplerSkipsVanishedAndUndecodableProcesses() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("joule-matrix-proc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let proc = dir.appendingPathComponent("proc")
        for pid in ["10", "11", "12"] {
            try FileManager.default.createDirectory(at: proc.appendingPathComponent(pid), withIntermediateDirectories: true)
        }
        try Data(("10 (ok)" + ProcStatCase.tail).utf8).write(to: proc.appendingPathComponent("10/stat"))
        try Data("11 (cut) S 1".utf8).write(to: proc.appendingPathComponent("11/stat"))
        // 12 has no stat: it vanished.
        let sampler = ProcessSampler(root: dir.path, ticksPerSecond: 100)
        let samples = try sampler.sample()
        #expect(samples.map(\.pid) == [10])
        #expect(samples.first?.cpuNanoseconds == 100_000_000)
        #expect(sampler.lastUndecodableCount == 1)
    }
}
