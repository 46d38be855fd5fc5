import Foundation
@testable import JouleHardware
@testable import JouleTransferQueue
import JouleTesting
import Testing

/// A writer SIGKILLed mid-transaction, in a child process: this test binary run again with
/// `JOULE_QUEUE_CRASH_CHILD` set, so the child writes through the same store code.
@Suite(.serialized) struct TransferStoreCrashTests {
    static let childVariable = "JOULE_QUEUE_CRASH_CHILD"

    /// The child's half, skipped in a normal run. `hold` opens a transaction, writes enough to
    /// spill into the WAL, says `ready` and sleeps inside it; `loop` commits updates as fast as
    /// it can, printing each value after its commit returned.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil, "only as the crash tests' child"))
    func crashChild() throws {
        let spec = try #require(ProcessInfo.processInfo.environment[Self.childVariable])
        let parts = spec.split(separator: "|", maxSplits: 2).map(String.init)
        let (mode, path, id) = (parts[0], parts[1], parts[2])
        let store = try TransferStore(path: path)
        switch mode {
        case "hold":
            try store.database.execute("PRAGMA cache_size = 8")  // spill uncommitted pages early
            try store.database.transaction { db in
                try db.execute("UPDATE transfers SET durable_bytes = 999, state = 'running' WHERE id = ?", [.text(id)])
                for i in 0..<5000 {
                    try db.execute("INSERT INTO padding (v) VALUES (?)", [.blob([UInt8](repeating: UInt8(i & 0xff), count: 512))])
                }
                FileHandle.standardOutput.write(Data("ready\n".utf8))
                while true { sleep(60) }
            }
        default:
            var n: Int64 = 0
            while true {
                n += 1
                let value = n
                try store.update(id) {
                    $0.durableBytes = value
                    $0.lastError = "after \(value)"
                    $0.state = .running
                }
                FileHandle.standardOutput.write(Data("\(n)\n".utf8))
            }
        }
    }

    /// Starts the child; returns it with a reader of its standard output.
    static func spawn(_ mode: String, _ path: String, _ id: String) throws -> (Process, Pipe) {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["--testing-library", "swift-testing", "--filter", "TransferStoreCrashTests/crashChild"]
        var environment = ProcessInfo.processInfo.environment
        environment[childVariable] = "\(mode)|\(path)|\(id)"
        child.environment = environment
        let out = Pipe()
        child.standardOutput = out
        child.standardError = FileHandle.nullDevice
        try child.run()
        return (child, out)
    }

    /// Reads the child's output until `line` appears (or the child exits), on a thread of its
    /// own: the reads block.
    static func waitForLine(_ line: String, from pipe: Pipe) async -> String {
        await onThread {
            var text = ""
            while !text.split(separator: "\n").contains(Substring(line)) {
                let data = pipe.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            return text
        }
    }

    @Test func aKillInsideATransactionLeavesTheLastCommit() async throws {
        let scratch = try TransferScratch()
        let store = try TransferStore(path: scratch.database)
        var t = TransferScratch.download("/a")
        t.durableBytes = 7
        try store.add(t)
        try store.database.execute("CREATE TABLE padding (v BLOB)")

        let (child, out) = try Self.spawn("hold", scratch.database, t.id)
        let said = await Self.waitForLine("ready", from: out)
        #expect(said.contains("ready"))
        // The uncommitted pages reached the WAL file before the kill.
        let walSize = (try? FileManager.default.attributesOfItem(atPath: scratch.database + "-wal")[.size] as? Int) ?? 0
        #expect(walSize > 1 << 20)
        // Readers on this side still see the last commit while the child holds its transaction.
        #expect(try store.get(t.id) == t)
        await child.end(SIGKILL)
        #expect(child.terminationReason == .uncaughtSignal)

        let reopened = try TransferStore(path: scratch.database)
        #expect(try reopened.database.query("PRAGMA integrity_check").first?[0].text == "ok")
        #expect(try reopened.get(t.id) == t)
        #expect(try reopened.database.query("SELECT count(*) FROM padding").first?[0].int64 == 0)
        #expect(try reopened.recoverAfterCrash().isEmpty)
        // Writable again: the dead writer's lock went with it.
        try reopened.update(t.id) { $0.durableBytes = 8 }
    }

    @Test func aKillBetweenCommitsLosesNoCommitThatReturned() async throws {
        let scratch = try TransferScratch()
        let store = try TransferStore(path: scratch.database)
        let t = try store.add(TransferScratch.download("/a"))

        let (child, out) = try Self.spawn("loop", scratch.database, t.id)
        // Let it commit for a while, then kill it wherever it is.
        var text = await Self.waitForLine("50", from: out)
        try await Task.sleep(for: .milliseconds(200))
        await child.end(SIGKILL)
        text += await onThread { String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        let reported = text.split(separator: "\n").compactMap { Int64($0) }.max() ?? 0
        #expect(reported >= 50)

        let reopened = try TransferStore(path: scratch.database)
        #expect(try reopened.database.query("PRAGMA integrity_check").first?[0].text == "ok")
        let after = try reopened.get(t.id)
        // Every commit that returned is there; at most the one in flight beyond it.
        #expect(after.durableBytes == reported || after.durableBytes == reported + 1)
        #expect(after.lastError == "after \(after.durableBytes)")
        let recovered = try reopened.recoverAfterCrash()
        #expect(recovered.map(\.id) == [t.id])
        #expect(try reopened.get(t.id).state == .suspended(until: nil))
        #expect(try reopened.get(t.id).durableBytes == after.durableBytes)
    }
}
