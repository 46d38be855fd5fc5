import Foundation
@testable import JouleHardware
@testable import JouleTransferQueue
import JouleTesting
import Testing

/// `joule_transfers{state}` and `joule_transfer_bytes_total`: the queue counted by state, and
/// the bytes the scheduler's attempts made durable, through a transport that reports progress
/// as the HTTP one does.
@Suite struct TransferMetricsTests {
    /// Reports each offset of `progress[transfer.url]` durable, then completes at the last.
    struct ScriptedTransport: TransferTransport {
        let progress: [String: [Int64]]

        func attempt(
            _ transfer: Transfer, tuning: TransferTuning, onDurable: @escaping @Sendable (DurableProgress) async -> Void
        ) async -> TransferAttemptResult {
            let offsets = progress[transfer.url] ?? []
            for offset in offsets { await onDurable(DurableProgress(durableBytes: offset, validators: transfer.validators)) }
            let last = offsets.last ?? transfer.durableBytes
            return TransferAttemptResult(outcome: .completed, durableBytes: last, validators: transfer.validators, progressed: last > transfer.durableBytes)
        }

        func shutdown() async {}
    }

    @Test func bytesAndStates() async throws {
        let scratch = try TransferScratch()
        let store = try TransferStore(path: scratch.database)
        let now = WallClock.seconds()
        let owner = CurrentProcess.effectiveUserID
        // A resumed download (500 bytes already durable), one that restarts from 0 for a new
        // representation, and an upload that reports only at its end.
        let resumed = Transfer(ownerUID: owner, url: "https://example.org/a", destination: scratch.path + "/a", createdAt: now,
                               deadline: now + 3600, durableBytes: 500)
        let restarted = Transfer(ownerUID: owner, url: "https://example.org/b", destination: scratch.path + "/b", createdAt: now,
                                 deadline: now + 3600, durableBytes: 700)
        let upload = Transfer(ownerUID: owner, url: "https://example.org/c", method: .put, destination: nil,
                              uploadSource: scratch.path + "/c", createdAt: now, deadline: now + 3600)
        let cancelled = Transfer(ownerUID: owner, url: "https://example.org/d", destination: scratch.path + "/d", createdAt: now,
                                 deadline: now + 3600, state: .cancelled)
        for transfer in [resumed, restarted, upload, cancelled] { try store.add(transfer) }
        let transport = ScriptedTransport(progress: [
            "https://example.org/a": [1500, 4000], "https://example.org/b": [0, 300, 1200], "https://example.org/c": [2048],
        ])
        let scheduler = TransferScheduler(
            store: store, transport: transport, settings: TransferSettings(),
            readings: .init(lineOnline: true, batteryPercentage: nil, lowPowerMode: false, thermalState: .nominal, metered: false),
            freeSpace: { _ in .init(freeBytes: 1 << 40, totalBytes: 1 << 41) }, log: { _ in })
        #expect(await scheduler.countsByState() == [
            "waiting": 3, "running": 0, "suspended": 0, "retrying": 0, "completed": 0, "failed": 0, "cancelled": 1,
        ])
        #expect(await scheduler.bytesTransferred == 0)
        await scheduler.start()
        var counts = await scheduler.countsByState()
        for _ in 0..<200 where counts?["completed"] != 3 {
            try await Task.sleep(for: .milliseconds(50))
            counts = await scheduler.countsByState()
        }
        #expect(counts == ["waiting": 0, "running": 0, "suspended": 0, "retrying": 0, "completed": 3, "failed": 0, "cancelled": 1])
        // 4000 − 500, then 1200 after the restart at 0 (the 700 before it are not taken back),
        // then the upload's 2048.
        #expect(await scheduler.bytesTransferred == 3500 + 1200 + 2048)
        await scheduler.stop()
    }
}
