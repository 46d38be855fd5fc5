import Foundation
import JouleHardware
import JouleTesting

#if canImport(Glibc)
import Glibc
#endif

/// A long-running `joule` (watch, monitor…) whose output lines a test reads as they come.
final class CLIProcess: @unchecked Sendable {
    private let process = Process()
    private let lock = NSCondition()
    private var lines: [String] = []
    private var partial = Data()
    private var ended = false

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = CLIHarness.binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.standardError
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in
            self?.receive(handle.availableData)
        }
        try process.run()
    }

    /// A test that fails before `stop` leaves no joule running (and polling) behind.
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    private func receive(_ data: Data) {
        lock.lock()
        defer {
            lock.broadcast()
            lock.unlock()
        }
        if data.isEmpty {
            ended = true
            return
        }
        partial.append(data)
        while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: partial[partial.startIndex..<newline], as: UTF8.self))
            partial.removeSubrange(partial.startIndex...newline)
        }
    }

    /// The next unread line, waiting up to `timeout` seconds of real time for it (a bound
    /// against hanging, not an assertion about speed). It polls with Task.sleep, holding no
    /// cooperative thread while it waits.
    func nextLine(timeout: Double = 20) async -> String? {
        var line: String?
        _ = await eventually(timeout: timeout) {
            lock.withLock {
                if !lines.isEmpty { line = lines.removeFirst() }
                return line != nil || ended
            }
        }
        return line
    }

    /// Lines received so far and not yet read.
    func pendingLines() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    /// Whether joule has exited on its own (or been stopped).
    var hasExited: Bool { !process.isRunning }

    /// Sends `signal` and waits for the exit status, and (up to 10 s) for the last of its
    /// output to be read, so `pendingLines()` holds what it printed on its way out.
    /// `timeout`: how long the exit may take before SIGKILL (a crash under ThreadSanitizer on a
    /// loaded machine has taken over 30 s).
    func stop(_ signal: Int32 = SIGTERM, timeout: Double = 30) async -> Int32 {
        let status = await process.end(signal, timeout: timeout)
        _ = await eventually(timeout: 10) { lock.withLock { ended } }
        return status
    }

    /// Sends `signal` without waiting for the exit, for a `defer` (which cannot await).
    func end(_ signal: Int32 = SIGKILL) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }
}

/// A writable copy of a fixture in a temporary directory, for tests that change it.
enum FixtureCopy {
    static func make(_ name: String) async throws -> String {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("joule-fixture-\(UUID().uuidString)").path
        let copy = try await Program.run("/bin/cp", ["-a", CLIHarness.fixturesDirectory.appendingPathComponent(name).path, destination])
        guard copy.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        return destination
    }

    /// Replaces the file whole (a rename): a poll never reads it empty between a truncation
    /// and the write, which no sysfs attribute ever is.
    static func write(_ text: String, to path: String) throws {
        try (text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
