import Foundation
import Glibc
@testable import JouleWire
@testable import JouleHardware
import JouleTesting
import Testing

/// sd-bus against a real private dbus-daemon (one per test, killed after): exports, property
/// reads, method calls, signals, name ownership and error replies, read back through our own
/// client and through busctl, a peer that shares no code with ours.
@Suite(.serialized) struct BusConnectionTests {
    static let name = "org.joule.Test1"
    static let path = "/org/joule/Test1"
    static let interfaceName = "org.joule.Test1"

    /// What the test object's handlers saw.
    final class Seen: Sendable {
        let calls = Locked<[BusMethodCall]>([])
        let lowPower = Locked(false)
    }

    static func testInterface(_ seen: Seen) -> BusInterface {
        BusInterface(
            name: interfaceName,
            properties: [
                .init("LowPowerMode", "b") { .bool(seen.lowPower.withLock { $0 }) },
                .init("ThermalState", "s") { .string("nominal") },
                .init("Percentage", "d") { .double(42.5) },
            ],
            methods: [
                .init("Echo", in: "s", inNames: ["text"], out: "s", outNames: ["echoed"]) { call throws(BusMethodError) in
                    seen.calls.withLock { $0.append(call) }
                    guard let text = call.arguments.first?.stringValue else { throw .invalidArgs("no text") }
                    return [.string("echo: \(text)")]
                },
                .init("Forbidden", in: "s", out: "") { _ throws(BusMethodError) in throw .accessDenied("not for you") },
                .init("SetLowPowerMode", in: "b", out: "") { call in
                    seen.lowPower.withLock { $0 = call.arguments.first?.boolValue ?? false }
                    return []
                },
            ],
            signals: [.init("PowerStateDidChange", "bs", names: ["low_power_mode", "source"])])
    }

    static func requireDaemon() throws {
        if PrivateBusDaemon.executable == nil {
            Issue.record("SKIPPED: dbus-daemon is not installed, so sd-bus is untested; run scripts/install-deps.sh")
            throw PrivateBusDaemon.Failure.missing("see the issue above")
        }
    }

    @Test func openingAMissingSocketNamesTheCallAndErrno() async throws {
        do {
            _ = try await BusConnection.open(address: "unix:path=/nonexistent/joule/bus")
            Issue.record("connected to nothing")
        } catch {
            guard case .system(let operation, let target, let errno) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(operation.hasPrefix("sd_bus_"))
            #expect(target == "unix:path=/nonexistent/joule/bus")
            #expect(errno == .noEntry)
        }
    }

    @Test func propertiesAndMethodsFromASecondConnection() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { daemon in
            let seen = Seen()
            let server = try await BusConnection.open(address: daemon.address)
            let client = try await BusConnection.open(address: daemon.address)
            try await server.export(Self.testInterface(seen), at: Self.path)
            try await server.requestName(Self.name)

            let low = try await client.property(destination: Self.name, path: Self.path, interface: Self.interfaceName, name: "LowPowerMode")
            let thermal = try await client.property(destination: Self.name, path: Self.path, interface: Self.interfaceName, name: "ThermalState")
            let percentage = try await client.property(destination: Self.name, path: Self.path, interface: Self.interfaceName, name: "Percentage")
            #expect(low == .bool(false))
            #expect(thermal == .string("nominal"))
            #expect(percentage == .double(42.5))

            let reply = try await client.call(
                destination: Self.name, path: Self.path, interface: Self.interfaceName, member: "Echo",
                arguments: [.string("hi")])
            #expect(reply == [.string("echo: hi")])

            // The handler sees the caller's unique name; the bus daemon vouches for its uid.
            let call = try #require(seen.calls.withLock { $0.first })
            #expect(call.sender == client.uniqueName)
            #expect(call.member == "Echo" && call.path == Self.path)
            let credentials = try await server.credentials(of: call.sender)
            #expect(credentials.uid == getuid())
            #expect(credentials.pid == UInt32(getpid()))

            await client.close()
            await server.close()
        }
    }

    @Test func aHandlerCanAnswerAccessDenied() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { daemon in
            let server = try await BusConnection.open(address: daemon.address)
            let client = try await BusConnection.open(address: daemon.address)
            try await server.export(Self.testInterface(Seen()), at: Self.path)
            do {
                _ = try await client.call(
                    destination: server.uniqueName, path: Self.path, interface: Self.interfaceName, member: "Forbidden",
                    arguments: [.string("x")])
                Issue.record("Forbidden answered")
            } catch let error as BusError {
                #expect(error.remoteName == "org.freedesktop.DBus.Error.AccessDenied")
                #expect("\(error)".contains("not for you"))
            }
            await client.close()
            await server.close()
        }
    }

    @Test func aTakenNameNamesItsOwnersPid() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { daemon in
            let first = try await BusConnection.open(address: daemon.address)
            let second = try await BusConnection.open(address: daemon.address)
            try await first.requestName(Self.name)
            do {
                try await second.requestName(Self.name)
                Issue.record("two owners")
            } catch let error as BusError {
                #expect(error == .nameTaken(name: Self.name, ownerPID: getpid()))
                #expect("\(error)".contains("pid \(getpid())"))
            }
            await first.close()
            await second.close()
        }
    }

    @Test func signalsAndPropertiesChangedReachAMatch() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { daemon in
            let seen = Seen()
            let server = try await BusConnection.open(address: daemon.address)
            let client = try await BusConnection.open(address: daemon.address)
            try await server.export(Self.testInterface(seen), at: Self.path)
            let stream = try await client.signals(matching: "type='signal',sender='\(server.uniqueName)'")
            var received = stream.makeAsyncIterator()

            try await server.emitSignal(
                path: Self.path, interface: Self.interfaceName, member: "PowerStateDidChange",
                arguments: [.bool(true), .string("battery")])
            let signal = try #require(await received.next())
            #expect(signal.member == "PowerStateDidChange" && signal.interface == Self.interfaceName)
            #expect(signal.path == Self.path)
            #expect(signal.arguments == [.bool(true), .string("battery")])

            seen.lowPower.withLock { $0 = true }
            try await server.emitPropertiesChanged(path: Self.path, interface: Self.interfaceName, names: ["LowPowerMode"])
            let changed = try #require(await received.next())
            #expect(changed.interface == "org.freedesktop.DBus.Properties" && changed.member == "PropertiesChanged")
            #expect(
                changed.arguments == [
                    .string(Self.interfaceName), .variantDictionary([("LowPowerMode", .bool(true))]),
                    .array(elementSignature: "s", []),
                ])

            await client.close()
            await server.close()
        }
    }

    @Test func busctlIntrospectsReadsAndCalls() async throws {
        try Self.requireDaemon()
        guard let busctl = ["/usr/bin/busctl", "/bin/busctl"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            Issue.record("SKIPPED: busctl (package systemd) is not installed")
            return
        }
        try await PrivateBusDaemon.with { daemon in
            let seen = Seen()
            let server = try await BusConnection.open(address: daemon.address)
            try await server.export(Self.testInterface(seen), at: Self.path)
            try await server.requestName(Self.name)
            let address = "--address=\(daemon.address)"

            let introspect = try await PrivateBusDaemon.run(busctl, [address, "introspect", Self.name, Self.path])
            #expect(introspect.status == 0, "\(introspect.output)")
            for member in [".Echo", ".LowPowerMode", ".Percentage", ".PowerStateDidChange", "emits-change"] {
                #expect(introspect.output.contains(member), "\(member) missing from \(introspect.output)")
            }

            let get = try await PrivateBusDaemon.run(busctl, [address, "get-property", Self.name, Self.path, Self.interfaceName, "Percentage"])
            #expect(get.output.trimmingCharacters(in: .whitespacesAndNewlines) == "d 42.5")

            let call = try await PrivateBusDaemon.run(busctl, [address, "call", Self.name, Self.path, Self.interfaceName, "Echo", "s", "from busctl"])
            #expect(call.output.trimmingCharacters(in: .whitespacesAndNewlines) == "s \"echo: from busctl\"")

            let set = try await PrivateBusDaemon.run(busctl, [address, "call", Self.name, Self.path, Self.interfaceName, "SetLowPowerMode", "b", "true"])
            #expect(set.status == 0, "\(set.output)")
            let low = try await PrivateBusDaemon.run(busctl, [address, "get-property", Self.name, Self.path, Self.interfaceName, "LowPowerMode"])
            #expect(low.output.trimmingCharacters(in: .whitespacesAndNewlines) == "b true")

            let denied = try await PrivateBusDaemon.run(busctl, [address, "call", Self.name, Self.path, Self.interfaceName, "Forbidden", "s", "x"])
            #expect(denied.status != 0)
            // busctl words well-known error names through their errno: AccessDenied is EACCES.
            #expect(denied.output.contains("Access denied"), "\(denied.output)")

            await server.close()
        }
    }

    /// Signals that wait for a busy consumer arrive whole and in order. Under ThreadSanitizer
    /// they were once reported as races: AsyncStream's buffer handed them over under a lock it
    /// cannot see (HandoffQueue).
    @Test func signalsThatWaitForTheConsumerArriveWholeAndInOrder() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { daemon in
            let server = try await BusConnection.open(address: daemon.address)
            let client = try await BusConnection.open(address: daemon.address)
            try await server.export(Self.testInterface(Seen()), at: Self.path)
            let stream = try await client.signals(matching: "type='signal',sender='\(server.uniqueName)'")
            let count = 300
            for n in 0..<count {
                try await server.emitSignal(
                    path: Self.path, interface: Self.interfaceName, member: "PowerStateDidChange",
                    arguments: [.bool(n.isMultiple(of: 2)), .string("source \(n)")])
            }
            // Nobody reads yet: they pile up in the client's queue.
            try await Task.sleep(for: .milliseconds(300))
            var received: [[BusValue]] = []
            for await signal in stream {
                received.append(signal.arguments)
                if received.count == count { break }
            }
            #expect(received == (0..<count).map { [.bool($0.isMultiple(of: 2)), .string("source \($0)")] })
            await client.close()
            await server.close()
        }
    }

    /// A consumer that goes away (its stream released, or its task cancelled) takes its match
    /// rule with it, as an AsyncStream's onTermination did.
    @Test func aConsumerGoneRemovesItsMatch() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { daemon in
            let client = try await BusConnection.open(address: daemon.address)
            let before = try await client.matchCount()
            var stream: AsyncStream<BusSignalMessage>? = try await client.signals(
                matchingAny: ["type='signal',interface='org.joule.A'", "type='signal',interface='org.joule.B'"])
            #expect(try await client.matchCount() == before + 2)
            _ = stream
            stream = nil
            #expect(try await eventually { try await client.matchCount() == before })

            let waiting = try await client.signals(matching: "type='signal',interface='org.joule.C'")
            let consumer = Task {
                var seen = 0
                for await _ in waiting { seen += 1 }
                return seen
            }
            #expect(try await client.matchCount() == before + 1)
            consumer.cancel()
            #expect(await consumer.value == 0)
            #expect(try await eventually { try await client.matchCount() == before })
            await client.close()
        }
    }

    /// A signal that cannot be sent is logged once (naming the signal, the object and why) until
    /// that signal goes out again, which is logged too; a client never learns of a lost change,
    /// so the journal must say it.
    @Test func aSignalThatCannotBeSentIsLoggedOnceUntilItWorksAgain() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { daemon in
            let server = try await BusConnection.open(address: daemon.address)
            try await server.export(Self.testInterface(Seen()), at: Self.path)
            let logged = Locked<[String]>([])
            let emitter = BusSignalEmitter(bus: server, path: Self.path, interface: Self.interfaceName) { line in
                logged.withLock { $0.append(line) }
            }
            // An object path that is not one: sd_bus_message_append refuses it.
            for _ in 0..<3 { await emitter.signal("PowerStateDidChange", [.objectPath("not a path"), .string("")]) }
            #expect(logged.withLock { $0.count } == 1)
            let first = logged.withLock { $0.first ?? "" }
            #expect(first.contains("cannot emit org.joule.Test1.PowerStateDidChange on /org/joule/Test1"))
            #expect(first.contains("clients miss this change"))
            await emitter.signal("PowerStateDidChange", [.bool(true), .string("battery")])
            #expect(logged.withLock { $0.last } == "emitting org.joule.Test1.PowerStateDidChange on /org/joule/Test1 works again")

            await server.close()
            await emitter.signal("PowerStateDidChange", [.bool(false), .string("")])
            await emitter.propertiesChanged(["LowPowerMode"])
            await emitter.propertiesChanged(["LowPowerMode"])
            let afterClose = logged.withLock { Array($0.dropFirst(2)) }
            #expect(afterClose.count == 2, "\(afterClose)")
            #expect(afterClose.first?.contains("PowerStateDidChange") == true)
            #expect(afterClose.last?.contains("cannot emit org.joule.Test1.PropertiesChanged") == true)
        }
    }

    /// The daemon must be frugal: an idle connection with an export and a match sleeps in
    /// poll(2) without a timeout, and wakes only for traffic.
    @Test func anIdleConnectionDoesNotWake() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { daemon in
            let server = try await BusConnection.open(address: daemon.address)
            try await server.export(Self.testInterface(Seen()), at: Self.path)
            let stream = try await server.signals(matching: "type='signal',interface='org.joule.Nothing'")
            try await Task.sleep(for: .milliseconds(50))
            let before = server.loopWakeups
            try await Task.sleep(for: .milliseconds(500))
            #expect(server.loopWakeups == before)
            // Work from a task wakes it, through the pipe.
            try await server.emitSignal(path: Self.path, interface: Self.interfaceName, member: "PowerStateDidChange", arguments: [.bool(false), .string("")])
            #expect(server.loopWakeups > before)
            _ = stream
            await server.close()
        }
    }
}
