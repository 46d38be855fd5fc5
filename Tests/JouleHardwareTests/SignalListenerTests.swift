import Foundation
import Glibc
import JouleWire
import JouleHardware
import JouleTesting
import Testing

/// Listeners share the signal handler but not their pipes: one listener's `cancel()` neither
/// wakes nor silences another. SIGHUP is used because the test runner does not handle it;
/// a listener stays active around every kill(2), so the default action never kills the run.
/// Signals go to the process, as a user's would: libdispatch threads block them, so raise(3)
/// from a test task would leave them pending.
@Suite(.serialized) struct SignalListenerTests {
    final class Received: Sendable {
        let signals = Locked<[TerminationSignal]>([])
        func append(_ signal: TerminationSignal) { signals.withLock { $0.append(signal) } }
        var all: [TerminationSignal] { signals.withLock { $0 } }
    }

    /// Polls (up to 20 s: signal delivery is prompt, but a loaded machine may run this late).
    static func waitFor(_ condition: () -> Bool) async throws {
        _ = await eventually(timeout: 20, every: .milliseconds(1), condition)
    }

    @Test func cancellingOneListenerLeavesTheOtherListening() async throws {
        let first = Received(), second = Received()
        let a = try SignalListener([.hangup], handler: first.append)
        let b = try SignalListener([.hangup], handler: second.append)
        defer { b.cancel() }
        kill(getpid(), SIGHUP)
        try await Self.waitFor { first.all.count == 1 && second.all.count == 1 }
        #expect(first.all == [.hangup] && second.all == [.hangup])

        a.cancel()
        try await Task.sleep(for: .milliseconds(20))
        // Cancelling delivered nothing to the other listener.
        #expect(second.all == [.hangup])
        kill(getpid(), SIGHUP)
        try await Self.waitFor { second.all.count == 2 }
        #expect(second.all == [.hangup, .hangup])
        #expect(first.all == [.hangup])
    }

    @Test func aListenerHearsOnlyItsSignals() async throws {
        let hup = Received(), other = Received()
        let a = try SignalListener([.hangup], handler: hup.append)
        let b = try SignalListener([.interrupt], handler: other.append)
        defer {
            a.cancel()
            b.cancel()
        }
        kill(getpid(), SIGHUP)
        try await Self.waitFor { hup.all.count == 1 }
        try await Task.sleep(for: .milliseconds(20))
        #expect(hup.all == [.hangup])
        #expect(other.all.isEmpty)
    }

    @Test func streamYieldsTypedSignals() async throws {
        let (stream, listener) = try SignalListener.stream([.hangup])
        defer { listener.cancel() }
        kill(getpid(), SIGHUP)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .hangup)
        #expect(TerminationSignal(number: SIGTERM) == .terminate)
        #expect(TerminationSignal.terminate.description == "SIGTERM")
    }
}
