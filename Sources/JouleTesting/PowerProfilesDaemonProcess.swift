import Foundation
import JouleHardware

/// The real power-profiles-daemon on a private bus, for what dbusmock's template cannot show:
/// ppd drops a hold when its holder's connection goes, and tells a holder `ProfileReleased`.
///
/// It runs under umockdev's preload with an empty testbed, so it sees no sysfs: only its
/// placeholder driver (power-saver and balanced), and its state file lands in the testbed.
/// Nothing on the machine is read or written. It asks polkit for holds, so a polkitd mock that
/// allows everything runs beside it.
public final class PowerProfilesDaemonProcess: Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case missing
        case didNotAppear(output: String)

        public var description: String {
            switch self {
            case .missing: "power-profiles-daemon or umockdev is not installed"
            case .didNotAppear(let output): "power-profiles-daemon did not own its name within 10 s; its output: \(output)"
            }
        }
    }

    /// `JOULE_PPD`, or where Debian and Arch install the daemon; nil when absent.
    public static let executable: String? = {
        let candidates = [
            ProcessInfo.processInfo.environment["JOULE_PPD"], "/usr/libexec/power-profiles-daemon",
            "/usr/lib/power-profiles-daemon/power-profiles-daemon",
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Sets LD_PRELOAD to umockdev's library and execs, so the process we start is ppd itself.
    static let wrapper = "/usr/bin/umockdev-wrapper"

    public static var isAvailable: Bool {
        get async {
            guard executable != nil, FileManager.default.isExecutableFile(atPath: wrapper) else { return false }
            return await DBusMock.isAvailable
        }
    }

    /// The polkitd mock ppd asks; it allows every action.
    public let polkit: DBusMock
    private let process: Process
    private let testbed: URL

    public init(address: String) async throws {
        guard let executable = Self.executable, await Self.isAvailable else { throw Failure.missing }
        polkit = try await DBusMock(.polkitd, address: address)
        try await polkit.call("AllowUnknown", arguments: [.bool(true)])
        testbed = FileManager.default.temporaryDirectory.appendingPathComponent("joule-ppd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: testbed, withIntermediateDirectories: true)
        let log = testbed.appendingPathComponent("ppd.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        environment["UMOCKDEV_DIR"] = testbed.path
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.wrapper)
        process.arguments = [executable, "--verbose"]
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        do {
            try process.run()
        } catch {
            polkit.stop()
            try? FileManager.default.removeItem(at: testbed)
            throw error
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, process.isRunning {
            if try await DBusMock.hasOwner("net.hadess.PowerProfiles", on: polkit.connection) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        let output = self.output
        stop()
        throw Failure.didNotAppear(output: output)
    }

    /// ppd's verbose log.
    public var output: String {
        (try? String(contentsOf: testbed.appendingPathComponent("ppd.log"), encoding: .utf8)) ?? ""
    }

    /// Kills ppd and its polkit mock without waiting (Foundation reaps them), as `DBusMock.stop`.
    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        polkit.stop()
        try? FileManager.default.removeItem(at: testbed)
    }
}
