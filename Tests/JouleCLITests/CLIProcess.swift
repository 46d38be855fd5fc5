import Foundation

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
    /// against hanging, not an assertion about speed).
    func nextLine(timeout: Double = 20) -> String? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        lock.lock()
        defer { lock.unlock() }
        while lines.isEmpty && !ended {
            if !lock.wait(until: deadline) { break }
        }
        return lines.isEmpty ? nil : lines.removeFirst()
    }

    /// Lines received so far and not yet read.
    func pendingLines() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    /// Whether joule has exited on its own (or been stopped).
    var hasExited: Bool { !process.isRunning }

    /// Sends `signal` and waits for the exit status.
    func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// A writable copy of a fixture in a temporary directory, for tests that change it.
enum FixtureCopy {
    static func make(_ name: String) throws -> String {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("joule-fixture-\(UUID().uuidString)").path
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: "/bin/cp")
        copy.arguments = ["-a", CLIHarness.fixturesDirectory.appendingPathComponent(name).path, destination]
        try copy.run()
        copy.waitUntilExit()
        guard copy.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        return destination
    }

    static func write(_ text: String, to path: String) throws {
        try (text + "\n").write(toFile: path, atomically: false, encoding: .utf8)
    }
}
