import Foundation
import JouleHardware

/// A real gpsd on a port of its own, reading a pty fed with NMEA stamped with the current
/// time: Tests/Support/gpsd_rig.py, which owns gpsd (so none outlives the test) and can kill
/// and restart it. gpsd runs without -n: it opens the pty only while a client watches, and
/// closes it RELEASE_TIMEOUT (60 s, gpsd.c) after the last one leaves.
public final class GPSDRig: @unchecked Sendable {
    /// One step of the track: a fix with HDOP (gpsd's `eph` is HDOP × 19 m), or none, for
    /// `epochs` epochs (5 a second); the last step repeats forever.
    public enum Step: Sendable {
        case fix(latitude: Double, longitude: Double, hdop: Double, epochs: Int)
        case noFix(epochs: Int)

        var json: String {
            switch self {
            case .fix(let latitude, let longitude, let hdop, let epochs): "[\(latitude),\(longitude),\(hdop),\(epochs)]"
            case .noFix(let epochs): "[null,\(epochs)]"
            }
        }
    }

    public static let executable: String? = ["/usr/sbin/gpsd", "/usr/bin/gpsd", "/usr/local/sbin/gpsd"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// gpsd is here (scripts/install-deps.sh installs it).
    public static var isAvailable: Bool { executable != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") }

    /// Whether the gpsd tests run: always in CI (CI=true), where a missing gpsd must fail
    /// them rather than skip them; elsewhere only when gpsd is installed.
    public static var shouldRun: Bool { ProcessInfo.processInfo.environment["CI"] == "true" || isAvailable }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Support/gpsd_rig.py").path

    public let scratch: ScratchDirectory
    public let pty: String
    public let port: Int
    private let process: Process
    private let commands: FileHandle
    private let output: String

    /// Starts the rig and waits (without blocking a thread) until gpsd answers.
    public init(track: [Step], rate: Double = 5) async throws {
        guard Self.isAvailable else { throw Failure.missing }
        scratch = try ScratchDirectory(prefix: "joule-gpsd")
        let trackPath = scratch.path + "/track.json"
        try ("[" + track.map(\.json).joined(separator: ",") + "]").write(toFile: trackPath, atomically: true, encoding: .utf8)
        output = scratch.path + "/rig.out"
        FileManager.default.createFile(atPath: output, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        defer { try? out.close() }
        let stdin = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.script, scratch.path, trackPath, String(rate)]
        process.standardInput = stdin
        // Never a pipe for output: an orphan holding it would hang `swift test`.
        process.standardOutput = out
        process.standardError = out
        try process.run()
        commands = stdin.fileHandleForWriting
        var ready: [Substring] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, process.isRunning {
            if let line = Self.lines(output).first(where: { $0.hasPrefix("ready ") }) {
                ready = line.split(separator: " ")
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        guard ready.count == 4, let port = Int(ready[2]) else {
            let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if process.isRunning { process.terminate() }
            throw Failure.didNotStart(output: said + ((try? String(contentsOfFile: scratch.path + "/gpsd.log", encoding: .utf8)) ?? ""))
        }
        pty = String(ready[1])
        self.port = port
    }

    deinit {
        // Closing stdin stops gpsd and the rig; SIGTERM too, should it be stuck.
        try? commands.close()
        if process.isRunning { process.terminate() }
    }

    public enum Failure: Error, CustomStringConvertible {
        case missing
        case didNotStart(output: String)

        public var description: String {
            switch self {
            case .missing: "gpsd is not installed (scripts/install-deps.sh installs gpsd)"
            case .didNotStart(let output): "gpsd_rig.py did not start gpsd within 30 s: \(output)"
            }
        }
    }

    /// `127.0.0.1:PORT`, for `--gpsd`.
    public var address: String { "127.0.0.1:\(port)" }

    /// gpsd's PID now (it changes with `restart`).
    public var gpsdPID: Int32? {
        guard let line = Self.lines(output).last(where: { $0.hasPrefix("ready ") }) else { return nil }
        return Int32(line.split(separator: " ")[3])
    }

    /// Whether gpsd has the pty open: its slave among gpsd's descriptors in /proc/PID/fd.
    /// This is gpsd's side of the story, not Joule's.
    public func gpsdHasDeviceOpen() -> Bool {
        guard let pid = gpsdPID else { return false }
        let directory = "/proc/\(pid)/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
        return entries.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)) == pty }
    }

    /// How often gpsd has opened the device so far (the rig's `open` lines).
    public var deviceOpenings: Int { Self.lines(output).filter { $0 == "open" }.count }

    /// SIGKILLs gpsd and waits until it is gone.
    public func kill() async throws {
        let killed = Self.lines(output).filter { $0 == "killed" }.count
        try commands.write(contentsOf: Data("kill\n".utf8))
        while Self.lines(output).filter({ $0 == "killed" }).count == killed {
            guard process.isRunning else { throw Failure.didNotStart(output: "the rig exited") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Starts gpsd again on the same port and waits until it answers.
    public func restart() async throws {
        let ready = Self.lines(output).filter { $0.hasPrefix("ready ") }.count
        try commands.write(contentsOf: Data("start\n".utf8))
        while Self.lines(output).filter({ $0.hasPrefix("ready ") }).count == ready {
            guard process.isRunning else { throw Failure.didNotStart(output: "the rig exited") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// gpsd's log so far, for failure messages.
    public var gpsdLog: String { (try? String(contentsOfFile: scratch.path + "/gpsd.log", encoding: .utf8)) ?? "" }

    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
