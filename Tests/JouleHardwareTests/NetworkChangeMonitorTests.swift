import Foundation
import JouleWire
import JouleHardware
import JouleTesting
import Testing

/// Whether this process may change links and routes (root with CAP_NET_ADMIN, `ip` installed):
/// probed once by adding and removing a blackhole route in TEST-NET-3, off the cooperative pool.
func canChangeRoutes() async -> Bool { await routeProbe.value }

private let routeProbe = Task {
    guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") || FileManager.default.isExecutableFile(atPath: "/sbin/ip")
    else { return false }
    guard await NetworkChangeMonitorTests.ip(["route", "add", "blackhole", "203.0.113.251/32"]) == 0 else { return false }
    return await NetworkChangeMonitorTests.ip(["route", "del", "blackhole", "203.0.113.251/32"]) == 0
}

/// NetworkChangeMonitor against the kernel: a real route or link change must arrive.
@Suite(.serialized)
struct NetworkChangeMonitorTests {
    /// ip(8) run to its end on a thread of its own: its exit status, -1 when it cannot run.
    static func ip(_ arguments: [String]) async -> Int32 {
        let ip = FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") ? "/usr/sbin/ip" : "/sbin/ip"
        return (try? await Program.run(ip, arguments))?.status ?? -1
    }

    /// Counts ticks on a task of its own, so a test can wait with a deadline.
    final class TickCounter: Sendable {
        private final class Log: Sendable {
            let ticks = Locked(0)
            let ended = Locked(false)
        }
        private let log = Log()
        private let task: Task<Void, Never>

        init(_ stream: AsyncStream<Void>) {
            let log = self.log
            task = Task {
                for await _ in stream { log.ticks.withLock { $0 += 1 } }
                log.ended.withLock { $0 = true }
            }
        }

        deinit { task.cancel() }

        var ticks: Int { log.ticks.withLock { $0 } }
        var ended: Bool { log.ended.withLock { $0 } }

        /// Waits up to `timeout` seconds (generous: a loaded machine may run this late) for `condition`.
        func wait(timeout: Double = 20, until condition: (TickCounter) -> Bool) async -> Bool {
            await eventually(timeout: timeout, every: .milliseconds(10)) { condition(self) }
        }
    }

    @Test(.enabled("needs CAP_NET_ADMIN and ip(8) to change a route") { await canChangeRoutes() })
    func aRouteAddedAndRemovedArrives() async throws {
        let monitor = try NetworkChangeMonitor()
        defer { monitor.stop() }
        let counter = TickCounter(monitor.changes)
        #expect(await Self.ip(["route", "add", "blackhole", "203.0.113.252/32"]) == 0)
        #expect(await counter.wait { $0.ticks >= 1 })
        let before = counter.ticks
        #expect(await Self.ip(["route", "del", "blackhole", "203.0.113.252/32"]) == 0)
        #expect(await counter.wait { $0.ticks > before })
    }

    @Test(.enabled("needs CAP_NET_ADMIN and ip(8) to add a link") { await canChangeRoutes() })
    func aLinkAddedAndRemovedArrives() async throws {
        let monitor = try NetworkChangeMonitor()
        defer { monitor.stop() }
        let counter = TickCounter(monitor.changes)
        let name = "jveth\(getpid() % 100000)"
        // Dummy links need a module some kernels lack; veth pairs are built in more often.
        // Without veth either, the route test above still covers the monitor.
        guard await Self.ip(["link", "add", name, "type", "veth", "peer", "name", name + "p"]) == 0 else { return }
        #expect(await counter.wait { $0.ticks >= 1 })
        let before = counter.ticks
        #expect(await Self.ip(["link", "del", name]) == 0)
        #expect(await counter.wait { $0.ticks > before })
    }

    /// Asleep in poll(2): with nothing changing (TEST-NET routes are only touched by the tests
    /// of this serialized suite), the thread does not wake at all.
    @Test func anIdleMonitorDoesNotWake() async throws {
        let monitor = try NetworkChangeMonitor()
        defer { monitor.stop() }
        try await Task.sleep(for: .milliseconds(300))
        #expect(monitor.wakeups == 0)
    }

    @Test(.enabled("needs CAP_NET_ADMIN and ip(8) to change a route") { await canChangeRoutes() })
    func eachChangeWakesItOnceOrTwice() async throws {
        let monitor = try NetworkChangeMonitor()
        defer { monitor.stop() }
        let counter = TickCounter(monitor.changes)
        #expect(await Self.ip(["route", "add", "blackhole", "203.0.113.253/32"]) == 0)
        #expect(await Self.ip(["route", "del", "blackhole", "203.0.113.253/32"]) == 0)
        #expect(await counter.wait { $0.ticks >= 1 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(monitor.wakeups >= 1 && monitor.wakeups <= 2)
    }

    @Test func stopEndsTheStream() async throws {
        let monitor = try NetworkChangeMonitor()
        let counter = TickCounter(monitor.changes)
        monitor.stop()
        monitor.stop()
        #expect(await counter.wait { $0.ended })
    }

    @Test func releasingTheMonitorEndsTheStream() async throws {
        var monitor: NetworkChangeMonitor? = try NetworkChangeMonitor()
        let counter = TickCounter(monitor!.changes)
        monitor = nil
        #expect(await counter.wait { $0.ended })
    }
}
