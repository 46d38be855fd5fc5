import Foundation
import JouleHardware
import JouleTesting
import JouleWire
import Testing

/// `org.joule.Location1` in a real `joule daemon` on a private bus, over a fixed position on
/// the daemon's wall clock (a fix a second while the receiver is on).
@Suite(.serialized) struct LocationDaemonTests {
    static func call(_ member: String, _ arguments: [BusValue] = [], on client: BusConnection) async throws -> [BusValue] {
        try await client.call(
            destination: LocationBus.busName, path: LocationBus.objectPath, interface: LocationBus.interfaceName, member: member,
            arguments: arguments)
    }

    static func property(_ name: String, on client: BusConnection) async throws -> BusValue {
        try await client.property(destination: LocationBus.busName, path: LocationBus.objectPath, interface: LocationBus.interfaceName, name: name)
    }

    /// Waits (at most 15 s) until `name` reads `value`.
    static func waitFor(_ name: String, _ value: BusValue, on client: BusConnection) async throws {
        var last: BusValue?
        for _ in 0..<150 {
            last = try await property(name, on: client)
            if last == value { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("\(name) stayed \(last.map(String.init(describing:)) ?? "unread"), never \(value)")
    }

    static func entries(_ value: BusValue?) -> [String: BusValue] {
        Dictionary((value?.stringKeyedEntries ?? []).map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
    }

    func daemon() async throws -> DaemonHarness {
        let harness = try await DaemonHarness()
        try harness.writeConfig("location:\n  source: \"fixed:48.8584,2.2945,12\"\n")
        try await harness.start()
        return harness
    }

    @Test func aOneShotRequestAnswersWithTheFixAndLeavesTheReceiverOff() async throws {
        let harness = try await daemon()
        defer { harness.end() }
        let client = try await harness.client()
        defer { Task { await client.close() } }
        #expect(try await Self.property("Receiver", on: client) == .bool(false))
        let reply = try await Self.call("RequestLocation", [.double(100), .double(10)], on: client)
        let fix = Self.entries(reply.first)
        #expect(fix["latitude"] == .double(48.8584) && fix["longitude"] == .double(2.2945))
        #expect(fix["horizontalAccuracyM"] == .double(12) && fix["accuracyMet"] == .bool(true) && fix["source"] == .string("fixed"))
        #expect(fix["altitudeM"] == nil, "a key the source did not give is absent")
        try await Self.waitFor("Receiver", .bool(false), on: client)
        // Bad arguments name what is wrong.
        do {
            _ = try await Self.call("RequestLocation", [.double(0), .double(10)], on: client)
            Issue.record("accuracy 0 was accepted")
        } catch {
            #expect("\(error)".contains("accuracy must be above 0"), "\(error)")
        }
    }

    @Test func updatesGoToTheirClientAloneAndEndWhenItLeavesTheBus() async throws {
        let harness = try await daemon()
        defer { harness.end() }
        let owner = try await harness.client()
        let other = try await harness.client()
        defer { Task { await other.close() } }
        let rule = "type='signal',interface='org.joule.Location1',member='LocationUpdated'"
        let mine = try await owner.signals(matching: rule)
        let theirs = try await other.signals(matching: rule)
        let reply = try await Self.call("StartUpdates", [.array(elementSignature: "{sv}", [.dictEntry(.string("accuracy"), .variant(.double(50)))])], on: owner)
        let handle = try #require(reply.first?.uint32Value)
        try await Self.waitFor("Receiver", .bool(true), on: other)
        // The fixture's battery is low, so Low Power Mode is on: the 50 m asked for relaxes to 1 km.
        #expect(try await Self.property("RequestedAccuracyM", on: other) == .double(1000))
        var iterator = mine.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.arguments.first == .uint32(handle))
        #expect(Self.entries(first.arguments.dropFirst().first)["latitude"] == .double(48.8584))
        // Another client cannot stop it, and hears none of its signals.
        do {
            _ = try await Self.call("Stop", [.uint32(handle)], on: other)
            Issue.record("another client stopped the handle")
        } catch {
            #expect("\(error)".contains(LocationBus.unknownHandleError), "\(error)")
        }
        let heard = Task {
            var iterator = theirs.makeAsyncIterator()
            return await iterator.next()
        }
        try await Task.sleep(for: .milliseconds(1500))
        heard.cancel()
        #expect(await heard.value == nil, "a unicast signal reached another client")
        // The owner leaves the bus (as a crash would): the receiver goes off.
        await owner.close()
        try await Self.waitFor("Receiver", .bool(false), on: other)
        try await harness.waitForLog("left the bus; its handles end")
    }

    @Test func anotherUserIsRefusedAndNothingStarts() async throws {
        guard NobodyBusctl.isAvailable else { return }
        let harness = try await daemon()
        defer { harness.end() }
        chmod(harness.bus.directory.path, 0o755)
        let refused = try await NobodyBusctl.call(
            address: harness.bus.address, LocationBus.busName, LocationBus.objectPath, LocationBus.interfaceName,
            ["RequestLocation", "dd", "100", "5"])
        // busctl prints the error name's text (AccessDenied: "Access denied"), not its message.
        #expect(refused.status != 0 && refused.output.contains("Access denied"), "\(refused.output)")
        let client = try await harness.client()
        defer { Task { await client.close() } }
        #expect(try await Self.property("Receiver", on: client) == .bool(false))
    }

    @Test func theConfigsRegionsAreMonitoredWithTheirHooks() async throws {
        let harness = try await DaemonHarness()
        defer { harness.end() }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("joule-region-hook-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        try harness.writeConfig("""
            location:
              source: "fixed:48.8584,2.2945,12"
            regions:
              - region: "tower=48.8584,2.2945,200"
                exec: "echo \\"$JOULE_EVENT $JOULE_REGION $JOULE_LATITUDE\\" >> \(out)"
              - region: "far=48.9584,2.2945,200"

            """)
        try await harness.start()
        try await harness.waitForLog("location: region tower: entered")
        try await harness.waitForLog("location: region far: exited")
        var text = ""
        for _ in 0..<100 {
            text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            if text.hasSuffix("\n") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(text == "enter tower 48.8584\n")
        // A fix 11 km from the far region's edge: the receiver sleeps (at 30 m/s, minutes).
        let client = try await harness.client()
        defer { Task { await client.close() } }
        try await Self.waitFor("Receiver", .bool(false), on: client)
    }

    @Test func visitsAndSignificantChangesComeAsTheirSignals() async throws {
        let harness = try await daemon()
        defer { harness.end() }
        let client = try await harness.client()
        defer { Task { await client.close() } }
        let visits = try await client.signals(matching: "type='signal',interface='org.joule.Location1',member='Visit'")
        let changes = try await client.signals(matching: "type='signal',interface='org.joule.Location1',member='SignificantChange'")
        let significant = try #require(try await Self.call("StartSignificantChanges", on: client).first?.uint32Value)
        var changeIterator = changes.makeAsyncIterator()
        let change = try #require(await changeIterator.next())
        #expect(change.arguments.first == .uint32(significant))
        #expect(Self.entries(change.arguments.dropFirst().first)["latitude"] == .double(48.8584))
        // A fixed position: the first fix anchors, and the first a second later arrives.
        let options: BusValue = .array(elementSignature: "{sv}", [.dictEntry(.string("minDwell"), .variant(.double(1)))])
        let handle = try #require(try await Self.call("StartVisits", [options], on: client).first?.uint32Value)
        var visitIterator = visits.makeAsyncIterator()
        let visit = try #require(await visitIterator.next())
        let fields = Self.entries(visit.arguments.dropFirst().first)
        #expect(visit.arguments.first == .uint32(handle))
        #expect(fields["radiusM"] == .double(100) && fields["arrival"] != nil && fields["departure"] == nil, "\(fields)")
        _ = try await Self.call("Stop", [.uint32(handle)], on: client)
        _ = try await Self.call("Stop", [.uint32(significant)], on: client)
        try await Self.waitFor("Receiver", .bool(false), on: client)
    }

    /// polkit decides: refused (AccessDenied naming org.joule.Location1.use, the receiver never
    /// on) until the action is allowed, then answered.
    @Test(.enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
    func polkitDecidesEveryCall() async throws {
        let harness = try await DaemonHarness()
        defer { harness.end() }
        try harness.writeConfig("location:\n  source: \"fixed:48.8584,2.2945,12\"\n")
        let polkit = try await DBusMock(.polkitd, address: harness.bus.address)
        defer { polkit.stop() }
        try await harness.start()
        let client = try await harness.client()
        defer { Task { await client.close() } }
        for (member, arguments) in [
            ("RequestLocation", [BusValue.double(100), .double(5)]), ("StartUpdates", [.array(elementSignature: "{sv}", [])]),
            ("AddRegion", [.string("home"), .double(1), .double(2), .double(100)]), ("StartSignificantChanges", []),
        ] {
            do {
                _ = try await Self.call(member, arguments, on: client)
                Issue.record("\(member) was allowed without polkit's consent")
            } catch {
                #expect((error as? BusError)?.remoteName == "org.freedesktop.DBus.Error.AccessDenied", "\(error)")
                #expect("\(error)".contains(LocationBus.useAction), "\(error)")
            }
        }
        #expect(try await Self.property("Receiver", on: client) == .bool(false))
        try await polkit.setAllowed([LocationBus.useAction])
        let fix = Self.entries(try await Self.call("RequestLocation", [.double(100), .double(10)], on: client).first)
        #expect(fix["accuracyMet"] == .bool(true))
    }
}
