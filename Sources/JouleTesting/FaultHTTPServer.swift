import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Tests/Support/fault_http_server.py on 127.0.0.1, with its request log and a scratch
/// directory for what tests download from it. Shared by the transfer tests of every target.
public final class FaultHTTPServer: @unchecked Sendable {
    public struct LoggedRequest: Decodable, Equatable, Sendable {
        public var path: String
        public var query: String
        public var range: String?
        public var ifRange: String?
        public var acceptEncoding: String?
        public var n: Int
    }

    public let port: Int
    public let directory: URL
    private let process = Process()
    private let logPath: URL

    /// Sources/JouleTesting/ → the package root → Tests/Support.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Support/fault_http_server.py").path

    /// Starts the server and reads the port it bound.
    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("joule-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        logPath = directory.appendingPathComponent("requests.log")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.script, logPath.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// A destination path in the test's own directory.
    public func destination(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Requests so far for `path`, oldest first.
    public func requests(_ path: String) throws -> [LoggedRequest] {
        guard let text = try? String(contentsOf: logPath, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { try JSONDecoder().decode(LoggedRequest.self, from: Data($0.utf8)) }
            .filter { $0.path == path }
    }

    /// The bytes the server sends for `size` at `version`.
    public static func body(size: Int, version: Int = 0) -> [UInt8] {
        (0..<size).map { UInt8((($0 * 31) + 7 + version) % 251) }
    }

    public static func fileBytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    public static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
}
