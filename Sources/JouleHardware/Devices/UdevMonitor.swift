#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Live uevents for some subsystems, as an `AsyncStream`.
///
/// libudev objects must stay on the thread that made them, so the monitor runs on a thread of
/// its own that creates, polls and releases them; only `DeviceEvent` values cross threads.
/// `stop()` (or deinit) wakes that thread through a pipe and ends the stream.
public final class UdevMonitor: Sendable {
    public let events: AsyncStream<DeviceEvent>
    private let thread: StoppableThread

    /// Starts listening; returns once the monitor is receiving, or throws why it cannot
    /// (no netlink in a container, no udev).
    public init(subsystems: [String]) throws(HardwareError) {
        let queue = HandoffQueue<DeviceEvent>(keepingNewest: 256)
        events = queue.stream()
        thread = try StoppableThread(
            name: "joule-udev-monitor",
            body: { stopFD, ready throws(HardwareError) in
                try UdevGateway.runMonitor(subsystems: subsystems, stopFD: stopFD, ready: ready, onEvent: { queue.push($0) })
            },
            finished: { queue.finish() })
    }

    /// Ends the monitor thread and the event stream. Safe to call more than once.
    public func stop() { thread.stop() }
}
