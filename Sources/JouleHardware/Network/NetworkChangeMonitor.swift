#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// "Something about links or routes changed", as an `AsyncStream` of empty ticks: an rtnetlink
/// socket subscribed to link and IPv4/IPv6 route changes, read by a thread of its own that
/// sleeps in poll(2) while nothing happens (no polling, no timer). Consumers re-read what they
/// care about (`DefaultRoute`, `NetworkInterfaceKind`) on each tick; ticks that pile up while a
/// consumer is busy collapse into one. `stop()` (or deinit) ends the thread and the stream.
public final class NetworkChangeMonitor: Sendable {
    public let changes: AsyncStream<Void>
    private let thread: StoppableThread
    private let pollReturns: Counter

    /// How often the thread has come back from poll(2) for the socket: flat while nothing
    /// changes, for tests and `make bench` of frugality.
    public var wakeups: Int { pollReturns.value }

    private final class Counter: Sendable {
        private let count = Atomic<Int>(0)
        func increment() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    /// Starts listening; returns once the socket is subscribed (a change after this returns is
    /// never missed), or throws why it cannot (no netlink, e.g. in a restricted sandbox).
    public init() throws(HardwareError) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        changes = stream
        let counter = Counter()
        pollReturns = counter
        thread = try StoppableThread(
            name: "joule-netlink-monitor",
            body: { stopFD, ready throws(HardwareError) in
                try NetlinkGateway.runRouteMonitor(
                    stopFD: stopFD, ready: ready, onWake: { counter.increment() }, onChange: { continuation.yield(()) })
            },
            finished: { continuation.finish() })
    }

    /// Ends the monitor thread and the stream. Safe to call more than once.
    public func stop() { thread.stop() }
}
