import Foundation

/// Tests/Support/fault_http_server.py on 127.0.0.1, with its request log and a scratch
/// directory for what tests download from it. Shared by the transfer tests of every target.
public final class FaultHTTPServer: @unchecked Sendable {
    public struct LoggedRequest: Decodable, Equatable, Sendable {
        public var method: String
        public var path: String
        public var query: String
        public var range: String?
        public var ifRange: String?
        public var acceptEncoding: String?
        public var n: Int
        /// Uploads: bytes of body received, and their sha256.
        public var length: Int?
        public var sha256: String?
    }

    public let port: Int
    public let directory: URL
    private let process: Process
    private let logPath: URL

    /// Sources/JouleTesting/ → the package root → Tests/Support.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Support/fault_http_server.py").path

    /// Starts the server and waits, without blocking a thread, for the port it writes. A
    /// blocking read here starved the cooperative pool when many tests started servers at once,
    /// delaying other tests' attempts and watchdogs.
    public static func start() async throws -> FaultHTTPServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("joule-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let logPath = directory.appendingPathComponent("requests.log")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, logPath.path]
        // Never a pipe: an orphan holding it would hang `swift test`.
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let portFile = directory.appendingPathComponent("port")
        while process.isRunning {
            if let text = try? String(contentsOf: portFile, encoding: .utf8),
               let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return FaultHTTPServer(port: port, directory: directory, process: process, logPath: logPath)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: script])
    }

    private init(port: Int, directory: URL, process: Process, logPath: URL) {
        self.port = port
        self.directory = directory
        self.process = process
        self.logPath = logPath
    }

    deinit {
        // SIGKILL, not SIGTERM: a server thread stuck in a fault must not delay the test's end.
        // Foundation reaps the child; waiting here would block a cooperative thread.
        if process.isRunning { SignalGateway.kill(process.processIdentifier) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the server and waits for it to exit: its port then refuses connections, for
    /// tests of a refused connection.
    public func stop() async throws {
        if process.isRunning { SignalGateway.kill(process.processIdentifier) }
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
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

    /// The path where the server stored the last upload body it received for `path`.
    public func received(_ path: String) -> String {
        directory.appendingPathComponent("received").appendingPathComponent(path.split(separator: "/").joined(separator: "_")).path
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
