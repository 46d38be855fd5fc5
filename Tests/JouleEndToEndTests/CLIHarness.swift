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

    typealias Result = Program.Result

    /// Runs joule with `arguments` and extra environment to its end, on a thread of its own,
    /// with `input` on stdin (nil: /dev/null).
    static func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) async throws -> Result {
        try await Program.run(
            binary, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new }, input: input)
    }
}

@Suite struct CLIBasicsTests {
    @Test func usageErrorExitsTwo() async throws {
        let result = try await CLIHarness.run(["--no-such-option"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("no-such-option"))
    }

    @Test func helpExitsZero() async throws {
        let result = try await CLIHarness.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("joule"))
    }
}
