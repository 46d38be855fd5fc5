import Foundation
import JouleTesting

#if canImport(Glibc)
import Glibc
#endif

/// What systemd's NOTIFY_SOCKET receives: a datagram socket bound by a small python3 process,
/// which appends each message (newlines as `|`) to a log, one line per datagram.
final class NotifyListener: @unchecked Sendable {
    let socket: String
    private let received: String
    private let process = Process()

    init(directory: URL) async throws {
        socket = directory.appendingPathComponent("notify").path
        received = directory.appendingPathComponent("notify.log").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", """
            import socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.bind(sys.argv[1])
            out = open(sys.argv[2], "a", buffering=1)
            out.write("LISTENING\\n")
            while True:
                out.write(s.recv(4096).decode().replace("\\n", "|") + "\\n")
            """, socket, received]
        // Its output must not hold the test's stdout open after the test.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard await eventually(every: .milliseconds(50), { self.notes.contains("LISTENING") }) else {
            throw HarnessError("the notify listener never bound \(socket)")
        }
    }

    deinit { kill(process.processIdentifier, SIGKILL) }  // Foundation reaps it

    /// Everything received so far, a line per message.
    var notes: String { (try? String(contentsOfFile: received, encoding: .utf8)) ?? "" }

    /// How many messages contained `text`.
    func count(_ text: String) -> Int { notes.components(separatedBy: text).count - 1 }

    /// Waits (at most 30 s) until `text` arrived `count` times.
    func wait(_ text: String, count: Int = 1) async throws {
        for _ in 0..<300 {
            if self.count(text) >= count { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("never received \(text) ×\(count): \(notes)")
    }
}
