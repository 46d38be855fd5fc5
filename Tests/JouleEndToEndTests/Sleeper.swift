import Foundation
import JouleTesting

#if canImport(Glibc)
import Glibc
#endif

/// `sleep 600` run under a name unique to one test (through a symlink to sleep), so a policy that
/// matches it by name can never touch anything else on the machine. `end()` kills it even
/// when stopped; call it in a `defer`.
final class Sleeper {
    let name: String
    let directory: String
    private let process = Process()

    /// `name` must be unique to the test (at most 15 bytes); by default a random `jsl…` name.
    init(name: String? = nil) throws {
        let name = name ?? "jsl" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(8).lowercased()
        self.name = name
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("joule-sleeper-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let sleep = ["/bin/sleep", "/usr/bin/sleep"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/bin/sleep"
        // A symlink, not a copy: the kernel names the process after the path it executes, and
        // executing a just-written copy races with forks in parallel tests (ETXTBSY).
        try FileManager.default.createSymbolicLink(atPath: directory + "/" + name, withDestinationPath: sleep)
        process.executableURL = URL(fileURLWithPath: directory + "/" + name)
        process.arguments = ["600"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// Fields after the command name in /proc/PID/stat (field 3 first); nil once gone.
    private var statFields: [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// The scheduler state letter: `T` when stopped.
    var state: String? { statFields?.first.map(String.init) }
    var isStopped: Bool { state == "T" || state == "t" }
    var startTime: String? { statFields.flatMap { $0.count > 19 ? String($0[19]) : nil } }

    /// Waits (bounded, against hanging; with Task.sleep) until the process is stopped or
    /// running as asked.
    @discardableResult
    func wait(stopped: Bool, timeout: Double = 15) async -> Bool {
        await eventually(timeout: timeout) { isStopped == stopped }
    }

    /// Kills it (continued, so that a stopped one dies too). It does not wait for the exit
    /// (Foundation reaps the child): a wait would block the cooperative thread of a `defer`.
    func end() {
        kill(pid, SIGKILL)
        kill(pid, SIGCONT)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
