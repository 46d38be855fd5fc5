import Foundation
import JouleTesting
import Testing

/// Runs the built `joule` binary, which SwiftPM places beside the test bundle.
enum CLIHarness {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var fixturesDirectory: URL { packageRoot.appendingPathComponent("hw-fixtures") }

    static var binary: URL {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        // Inside an .xctest bundle directory on some layouts; walk up to the build folder.
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("joule")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/joule")
    }

    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs joule with `arguments` and extra environment, waiting for it to exit.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes to the end before waiting, so a large output cannot block the child.
        let errData = ReadAll(err.fileHandleForReading)
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.wait(), as: UTF8.self))
    }
}

@Suite struct CLIBasicsTests {
    @Test func usageErrorExitsTwo() throws {
        let result = try CLIHarness.run(["--no-such-option"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("no-such-option"))
    }

    @Test func helpExitsZero() throws {
        let result = try CLIHarness.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("joule"))
    }
}
