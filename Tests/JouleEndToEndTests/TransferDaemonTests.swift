import Foundation
import JouleWire
import JouleHardware
import JouleTransferQueue
import JouleDaemon
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `joule daemon`'s deferred transfers end to end: the daemon on a private system bus, the
/// fault-injection HTTP server on 127.0.0.1, org.joule.Transfers1 called over the bus, network
/// conditions from fixture roots and python3-dbusmock's NetworkManager, power and thermal from
/// the fixture batteries and zones.
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") {
    await DBusMock.isAvailable && PrivateBusDaemon.executable != nil
})
struct TransferDaemonTests {
    static let interface = TransfersBus.interfaceName

    /// A running daemon with a client connection, a fault server and a signal log.
    final class Rig: @unchecked Sendable {
        let harness: DaemonHarness
        let server: FaultHTTPServer
        let client: BusConnection
        let signals: SignalLog

        init(fixture: String = "dell-xps-13-low-battery-discharging", config: String = "", network: Network = .wifi,
             before: (DaemonHarness) async throws -> Void = { _ in }) async throws {
            harness = try await DaemonHarness(fixture: fixture)
            server = try await FaultHTTPServer.start()
            try network.write(into: harness.knobs.path)
            try harness.writeConfig(config)
            try await before(harness)
            try await harness.start()
            client = try await harness.client()
            signals = try await SignalLog(client)
        }

        /// For a `defer`: signals the daemon and kills its bus now, without waiting. A task
        /// doing it after the last test may never run before the test process exits, and
        /// would leave the private dbus-daemon behind.
        func end() {
            harness.end()
            harness.bus.stop()
            let client = client
            Task { await client.close() }
        }

        func call(_ member: String, _ arguments: [BusValue] = []) async throws -> [BusValue] {
            try await client.call(
                destination: TransfersBus.busName, path: TransfersBus.objectPath, interface: interface,
                member: member, arguments: arguments)
        }

        func add(_ request: TransferRequest) async throws -> String {
            let reply = try await call("Add", [request.busValue])
            return try #require(reply.first?.stringValue)
        }

        /// The error name and message a call answers with; nil when it succeeds.
        func failure(_ member: String, _ arguments: [BusValue]) async -> (name: String, message: String)? {
            do {
                _ = try await call(member, arguments)
                return nil
            } catch let error as BusError {
                return (error.remoteName ?? "?", "\(error)")
            } catch {
                return ("?", "\(error)")
            }
        }

        func getText(_ id: String) async throws -> String {
            try #require(try await call("Get", [.string(id)]).first?.stringValue)
        }

        func get(_ id: String) async throws -> [String: Any] {
            let text = try await getText(id)
            return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }

        /// Waits (at most 30 s, a bound against hanging) until the transfer is in `state`.
        @discardableResult
        func wait(_ id: String, for state: String, where extra: ([String: Any]) -> Bool = { _ in true }) async throws -> [String: Any] {
            var last: [String: Any] = [:]
            for _ in 0..<300 {
                last = try await get(id)
                if last["state"] as? String == state, extra(last) { return last }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw HarnessError("transfer \(id) never reached \(state): \(last)\n\(harness.log)")
        }
    }

    /// Records org.joule.Transfers1 signals from the moment it is made.
    final class SignalLog: Sendable {
        private final class Entries: Sendable { let value = Locked<[[String]]>([]) }
        private let seen = Entries()
        private let task: Task<Void, Never>

        init(_ client: BusConnection) async throws {
            let stream = try await client.signals(matching: "type='signal',interface='\(TransferDaemonTests.interface)'")
            let seen = self.seen
            task = Task {
                for await signal in stream {
                    seen.value.withLock { $0.append([signal.member] + signal.arguments.map { $0.stringValue ?? "\($0)" }) }
                }
            }
        }

        deinit { task.cancel() }

        var all: [[String]] { seen.value.withLock { $0 } }

        func waitFor(_ entry: [String]) async -> Bool {
            for _ in 0..<300 {
                if all.contains(entry) { return true }
                try? await Task.sleep(for: .milliseconds(100))
            }
            return false
        }
    }

    /// The default route of the fixture root.
    enum Network {
        case wifi, modem, none

        func write(into root: String) throws {
            let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
            func route(_ name: String) -> String { "\(name)\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n" }
            let files: [(String, String)] = [
                ("sys/class/net/wwan0/uevent", "DEVTYPE=wwan\nINTERFACE=wwan0\nIFINDEX=5\n"), ("sys/class/net/wwan0/type", "1\n"),
                ("sys/class/net/wlan0/uevent", "DEVTYPE=wlan\nINTERFACE=wlan0\nIFINDEX=3\n"), ("sys/class/net/wlan0/type", "1\n"),
                ("proc/net/route", header + (self == .wifi ? route("wlan0") : self == .modem ? route("wwan0") : "")),
            ]
            for (path, text) in files {
                let url = URL(fileURLWithPath: root).appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try text.write(to: url, atomically: true, encoding: .utf8)
            }
        }
    }

    static func sha256(_ path: String) throws -> String { try SHA256Hasher.hexDigest(ofFile: path) }

    // MARK: Downloads

    @Test func aDownloadCompletesWithSignalsAndTheBindingJSON() async throws {
        let rig = try await Rig()
        defer { rig.end() }
        let destination = rig.server.destination("plain.bin")
        let id = try await rig.add(TransferRequest(url: rig.server.url("/plain?size=300000"), destination: destination))
        try await rig.wait(id, for: "completed")
        #expect(FaultHTTPServer.fileBytes(destination) == FaultHTTPServer.body(size: 300_000))
        #expect(!FaultHTTPServer.exists(destination + ".part"))
        #expect(await rig.signals.waitFor(["TransferFinished", id, "completed", destination]))
        #expect(rig.signals.all.contains(["TransferChanged", id, "running"]))
        // The binding key order.
        let text = try await rig.getText(id)
        let keys = ["id", "url", "destination", "state", "waitingFor", "discretionary", "priority", "batch", "bytes",
                    "totalBytes", "attempts", "nextAttempt", "deadline", "error", "reason"]
        let positions = keys.map { text.range(of: "\"\($0)\":")?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil }, "\(text)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "\(text)")
        let object = try await rig.get(id)
        #expect(object["bytes"] as? Int == 300_000)
        #expect(object["totalBytes"] as? Int == 300_000)
        #expect(object["error"] is NSNull)
        #expect(object["reason"] is NSNull)
        #expect(object["nextAttempt"] is NSNull)
        let deadline = try #require(object["deadline"] as? Double)
        #expect(abs(deadline - (Date().timeIntervalSince1970 + 604_800)) < 120)
        // List has it; root (this test) sees it.
        let list = try #require(try await rig.call("List").first?.stringValue)
        #expect(list.contains(id))
    }

    @Test func uploadsArriveWholeByPUTAndPOST() async throws {
        let rig = try await Rig()
        defer { rig.end() }
        let source = rig.server.destination("report.bin")
        try Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }).write(to: URL(fileURLWithPath: source))
        let put = try await rig.add(TransferRequest(url: rig.server.url("/put"), upload: source))
        let post = try await rig.add(TransferRequest(
            url: rig.server.url("/post"), upload: source, method: .post,
            headers: [TransferHeader(name: "Content-Type", value: "application/octet-stream")]))
        for id in [put, post] {
            let done = try await rig.wait(id, for: "completed")
            #expect(done["bytes"] as? Int == 200_000)
            #expect(await rig.signals.waitFor(["TransferFinished", id, "completed", source]))
        }
        let expected = try Self.sha256(source)
        #expect(try rig.server.requests("/put").map(\.method) == ["PUT"])
        #expect(try rig.server.requests("/post").map(\.method) == ["POST"])
        #expect(try Self.sha256(rig.server.received("/put")) == expected)
        #expect(try Self.sha256(rig.server.received("/post")) == expected)
    }

    @Test func discretionaryWaitsForACBatteryAndLowPowerModeOnALowBattery() async throws {
        // 14 % and discharging: Low Power Mode is on, no line power.
        let rig = try await Rig()
        defer { rig.end() }
        let waiting = try await rig.add(
            TransferRequest(url: rig.server.url("/later?size=1000"), destination: rig.server.destination("later.bin"), discretionary: true))
        let held = try await rig.wait(waiting, for: "waiting")
        #expect(held["waitingFor"] as? [String] == ["ac", "battery", "lowPowerMode"])
        #expect(held["discretionary"] as? Bool == true)
        // Without --discretionary it needs only its network and thermal below critical.
        let now = try await rig.add(TransferRequest(url: rig.server.url("/now?size=1000"), destination: rig.server.destination("now.bin")))
        try await rig.wait(now, for: "completed")
        try await rig.wait(waiting, for: "waiting")
        #expect(try rig.server.requests("/later").isEmpty)
    }

    @Test func unmeteredOnlyFollowsNetworkManagersMetered() async throws {
        var mock: DBusMock?
        let rig = try await Rig { harness in
            // NM says GUESS_YES (3): metered, as a phone hotspot NM recognises.
            let nm = try await DBusMock(.networkManager, address: harness.bus.address)
            try await nm.addProperties(interface: NetworkManagerClient.interface, [("Metered", .uint32(3))])
            mock = nm
        }
        defer {
            mock?.stop()
            rig.end()
        }
        let id = try await rig.add(
            TransferRequest(url: rig.server.url("/nm?size=2000"), destination: rig.server.destination("nm.bin"), unmeteredOnly: true))
        let held = try await rig.wait(id, for: "waiting")
        #expect(held["waitingFor"] as? [String] == ["unmetered"])
        // NO (2): PropertiesChanged wakes the scheduler; nothing polls.
        try await #require(mock).setProperty(interface: NetworkManagerClient.interface, name: "Metered", value: .uint32(2))
        try await rig.wait(id, for: "completed")
    }

    @Test func losingTheUnmeteredNetworkMidTransferSuspendsWithoutCountingAnAttempt() async throws {
        var mock: DBusMock?
        let rig = try await Rig { harness in
            let nm = try await DBusMock(.networkManager, address: harness.bus.address)
            try await nm.addProperties(interface: NetworkManagerClient.interface, [("Metered", .uint32(2))])
            mock = nm
        }
        defer {
            mock?.stop()
            rig.end()
        }
        let size = 1_000_000, path = "/roam"
        let destination = rig.server.destination("roam.bin")
        let id = try await rig.add(
            TransferRequest(url: rig.server.url("\(path)?size=\(size)&trickle=100000"), destination: destination, unmeteredOnly: true))
        try await rig.wait(id, for: "running") { ($0["bytes"] as? Int ?? 0) > 0 }
        // The phone hotspot takes over: YES (1).
        try await #require(mock).setProperty(interface: NetworkManagerClient.interface, name: "Metered", value: .uint32(1))
        let held = try await rig.wait(id, for: "waiting") { ($0["waitingFor"] as? [String]) == ["unmetered"] }
        #expect(rig.signals.all.contains(["TransferChanged", id, "suspended"]))
        #expect(held["attempts"] as? Int == 0)
        let kept = try #require(held["bytes"] as? Int)
        #expect(kept > 0)
        // Back on Wi-Fi: it resumes from what it kept.
        try await #require(mock).setProperty(interface: NetworkManagerClient.interface, name: "Metered", value: .uint32(2))
        try await rig.wait(id, for: "completed")
        #expect(FaultHTTPServer.fileBytes(destination) == FaultHTTPServer.body(size: size))
        #expect(try rig.server.requests(path).compactMap(\.range).contains("bytes=\(kept)-"))
    }

    @Test func aModemRouteIsMeteredUntilTheConfigSaysOtherwise() async throws {
        let rig = try await Rig(network: .modem)
        defer { rig.end() }
        let id = try await rig.add(
            TransferRequest(url: rig.server.url("/modem?size=2000"), destination: rig.server.destination("modem.bin"), unmeteredOnly: true))
        let held = try await rig.wait(id, for: "waiting")
        #expect(held["waitingFor"] as? [String] == ["unmetered"])
        try rig.harness.writeConfig("transfers:\n  meteredInterfaces:\n    wwan0: false\n")
        kill(try #require(rig.harness.process).processIdentifier, SIGHUP)
        try await rig.wait(id, for: "completed")
    }

    @Test func aServerRetryAfterIsHonouredThenTheTransferCompletes() async throws {
        let rig = try await Rig(config: "transfers:\n  retryAfterMin: 1\n")
        defer { rig.end() }
        let destination = rig.server.destination("busy.bin")
        let id = try await rig.add(TransferRequest(url: rig.server.url("/busy?size=5000&statusfirst=503&retryafter=1"), destination: destination))
        try await rig.wait(id, for: "completed")
        #expect(rig.signals.all.contains(["TransferChanged", id, "retrying"]))
        #expect(try rig.server.requests("/busy").count == 2)
        #expect(FaultHTTPServer.fileBytes(destination) == FaultHTTPServer.body(size: 5000))
    }

    @Test func aClientErrorFailsAtOnceAndTheHookHearsIt() async throws {
        let rig = try await Rig()
        defer { rig.end() }
        let destination = rig.server.destination("missing.bin"), out = rig.server.destination("hook.env")
        let id = try await rig.add(
            TransferRequest(
                url: rig.server.url("/missing?status=404"), destination: destination,
                onComplete: "env | grep '^JOULE_TRANSFER_' | sort > '\(out)'"))
        let failed = try await rig.wait(id, for: "failed")
        #expect((failed["error"] as? String)?.contains("404") == true, "\(failed)")
        #expect(!FaultHTTPServer.exists(destination))
        #expect(!FaultHTTPServer.exists(destination + ".part"))
        #expect(await rig.signals.waitFor(["TransferFinished", id, "failed", destination]))
        // The shell creates the file before the pipeline writes to it: wait for its last line.
        _ = await eventually(timeout: 10, every: .milliseconds(100)) {
            ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").contains("JOULE_TRANSFER_URL=")
        }
        let environment = try String(contentsOfFile: out, encoding: .utf8)
        #expect(environment.contains("JOULE_TRANSFER_ID=\(id)\n"))
        #expect(environment.contains("JOULE_TRANSFER_STATE=failed\n"))
        #expect(environment.contains("JOULE_TRANSFER_PATH=\(destination)\n"))
        #expect(environment.contains("JOULE_TRANSFER_URL=\(rig.server.url("/missing?status=404"))\n"))
    }

    /// Issue 32: a refused connection ends its attempt at once (it does not sit `running` until
    /// the throughput window suspends it), counts it, and waits out the backoff with no `.part`
    /// on disk and the reason in one sentence with the errno's name.
    @Test func aRefusedConnectionRetriesAfterTheBackoffLeavingNoPartFile() async throws {
        // A window shorter than the HTTP client's 30 s connect timeout: an attempt left waiting
        // on the connection would end suspended, never retrying.
        let rig = try await Rig(config: "transfers:\n  throughputWindow: 2\n")
        defer { rig.end() }
        let closed = try await FaultHTTPServer.start()
        try await closed.stop()
        let destination = rig.server.destination("refused.bin")
        let id = try await rig.add(TransferRequest(url: closed.url("/refused.bin"), destination: destination))
        let retrying = try await rig.wait(id, for: "retrying")
        let sentence = "cannot connect to 127.0.0.1:\(closed.port): connection refused (ECONNREFUSED)"
        #expect(retrying["error"] as? String == sentence, "\(retrying)")
        #expect(retrying["reason"] as? String == sentence, "\(retrying)")
        #expect(retrying["attempts"] as? Int == 1, "\(retrying)")
        #expect(!FaultHTTPServer.exists(destination + ".part"))
        #expect(!FaultHTTPServer.exists(destination))
    }

    /// As BITS: attempts without progress fail the transfer; attempts that make progress never
    /// count, however many there are.
    @Test func attemptsWithoutProgressFailItAndProgressResetsTheCount() async throws {
        let rig = try await Rig(config: "transfers:\n  retryInitial: 0.05\n  retryMax: 0.1\n  retryJitter: 0\n  maxAttemptsWithoutProgress: 3\n")
        defer { rig.end() }
        let stuck = try await rig.add(TransferRequest(url: rig.server.url("/down?status=503"), destination: rig.server.destination("down.bin")))
        let failed = try await rig.wait(stuck, for: "failed")
        #expect((failed["error"] as? String)?.contains("3 attempts without progress") == true, "\(failed)")
        #expect(try rig.server.requests("/down").count == 3)
        // Every response is cut after 1000 bytes, but each resumes further: 5 attempts, no failure.
        let destination = rig.server.destination("chunks.bin")
        let chunked = try await rig.add(TransferRequest(url: rig.server.url("/chunks?size=5000&cut=1000"), destination: destination))
        try await rig.wait(chunked, for: "completed")
        #expect(try rig.server.requests("/chunks").count >= 5)
        #expect(FaultHTTPServer.fileBytes(destination) == FaultHTTPServer.body(size: 5000))
    }

    @Test func aSHA256MismatchFailsLeavingNoFile() async throws {
        let rig = try await Rig()
        defer { rig.end() }
        let destination = rig.server.destination("sum.bin")
        let id = try await rig.add(
            TransferRequest(url: rig.server.url("/sum?size=4000"), destination: destination, sha256: String(repeating: "ab", count: 32)))
        let failed = try await rig.wait(id, for: "failed")
        #expect((failed["error"] as? String)?.contains("sha256") == true)
        #expect(!FaultHTTPServer.exists(destination))
        #expect(!FaultHTTPServer.exists(destination + ".part"))
    }

    // MARK: Crashes and cancels

    @Test func aSIGKILLMidTransferResumesWithRangeAtTheDurableOffset() async throws {
        let rig = try await Rig()
        defer { rig.end() }
        let size = 1_500_000
        let destination = rig.server.destination("long.bin")
        let path = "/long"
        let id = try await rig.add(TransferRequest(url: rig.server.url("\(path)?size=\(size)&trickle=150000"), destination: destination))
        try await rig.wait(id, for: "running") { ($0["bytes"] as? Int ?? 0) >= 200_000 }
        await rig.harness.stop(SIGKILL)
        // What the queue holds after the crash: the offset the restarted daemon must resume at.
        let store = try TransferStore(path: rig.harness.stateDirectory + "/" + TransferStore.fileName)
        let durable = try store.get(id).durableBytes
        #expect(try store.get(id).state == .running)
        #expect(durable >= 200_000 && durable < Int64(size))
        try await rig.harness.start()
        try await rig.wait(id, for: "completed")
        let expected = try SHA256Hasher()
        expected.update(FaultHTTPServer.body(size: size))
        #expect(try Self.sha256(destination) == (try expected.finalize()))
        let ranges = try rig.server.requests(path).compactMap(\.range)
        #expect(ranges.contains("bytes=\(durable)-"), "ranges \(ranges), durable \(durable)")
        #expect(rig.harness.log.contains("interrupted by a crash"))
    }

    /// SIGKILL at random points (JOULE_KILL_POINTS, default 200) while transfers start, run,
    /// record durable progress, retry and complete: after each kill the queue opens, holds
    /// every transfer once, and no `.part` file is shorter than its `durableBytes` (the bytes
    /// the queue vouches for). Then a last run completes every download, byte for byte.
    @Test func sigkillAtRandomPointsLosesAndDuplicatesNothing() async throws {
        let points = Int(ProcessInfo.processInfo.environment["JOULE_KILL_POINTS"] ?? "") ?? 200
        // Quick retries: an attempt cut by a kill (or by a loaded machine) must not leave the
        // last run waiting out the default backoff; retrying is not what this test measures.
        let rig = try await Rig(config: "transfers:\n  retryInitial: 0.05\n  retryMax: 0.5\n  retryJitter: 0\n")
        defer { rig.end() }
        // 15 s of trickle each: the kills land while they start, run and record progress.
        let size = 3_000_000
        var ids: [String: String] = [:]  // id → destination
        for n in 0..<2 {
            let destination = rig.server.destination("k\(n).bin")
            let id = try await rig.add(TransferRequest(url: rig.server.url("/k\(n)?size=\(size)&trickle=200000"), destination: destination))
            ids[id] = destination
        }
        var generator = SystemRandomNumberGenerator()
        for point in 0..<points {
            let process = rig.harness.process
            try await Task.sleep(for: .milliseconds(Int.random(in: 0..<400, using: &generator)))
            if let process { _ = await process.end(SIGKILL) }
            let store = try TransferStore(path: rig.harness.stateDirectory + "/" + TransferStore.fileName)
            let transfers = try store.list()
            #expect(transfers.map(\.id).sorted() == ids.keys.sorted(), "after kill \(point): \(transfers.map(\.id))")
            for transfer in transfers {
                let part = (ids[transfer.id] ?? "") + ".part"
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: part),
                    let length = (attributes[.size] as? NSNumber)?.int64Value
                else { continue }
                #expect(length >= transfer.durableBytes, "after kill \(point): \(part) has \(length) bytes, durable \(transfer.durableBytes)")
            }
            _ = try rig.harness.launch([])
        }
        // A run left alone completes what is left.
        if let last = rig.harness.process { _ = await last.end(SIGKILL) }
        try await rig.harness.start()
        let expected = try SHA256Hasher()
        expected.update(FaultHTTPServer.body(size: size))
        let digest = try expected.finalize()
        for (id, destination) in ids {
            try await rig.wait(id, for: "completed")
            #expect(try Self.sha256(destination) == digest)
            #expect(!FaultHTTPServer.exists(destination + ".part"))
        }
    }

    @Test func cancelStopsARunningTransferAndRemovesItsPartFile() async throws {
        let rig = try await Rig()
        defer { rig.end() }
        let destination = rig.server.destination("slow.bin")
        let id = try await rig.add(TransferRequest(url: rig.server.url("/slow?size=2000000&trickle=50000"), destination: destination))
        try await rig.wait(id, for: "running") { ($0["bytes"] as? Int ?? 0) > 0 }
        _ = try await rig.call("Cancel", [.string(id)])
        try await rig.wait(id, for: "cancelled")
        #expect(await rig.signals.waitFor(["TransferFinished", id, "cancelled", destination]))
        _ = await eventually(every: .milliseconds(100)) { !FaultHTTPServer.exists(destination + ".part") }
        #expect(!FaultHTTPServer.exists(destination + ".part"))
        #expect(!FaultHTTPServer.exists(destination))
        let again = await rig.failure("Cancel", [.string(id)])
        #expect(again?.name == TransfersBus.alreadyFinishedError)
    }

    // MARK: Scheduling

    @Test func aBatchStartsTogetherOnceEveryMemberIsReady() async throws {
        let rig = try await Rig()
        defer { rig.end() }
        // The member that must wait comes first: a batch cannot know of members not yet added.
        let second = try await rig.add(
            TransferRequest(
                url: rig.server.url("/b2?size=1000"), destination: rig.server.destination("b2.bin"), batch: "nightly",
                beginAfter: 2))
        let first = try await rig.add(
            TransferRequest(url: rig.server.url("/b1?size=1000"), destination: rig.server.destination("b1.bin"), batch: "nightly"))
        let held = try await rig.get(first)
        #expect(held["state"] as? String == "waiting")
        #expect(held["waitingFor"] as? [String] == ["batch"])
        #expect(try await rig.get(second)["waitingFor"] as? [String] == ["beginAfter", "batch"])
        #expect(try rig.server.requests("/b1").isEmpty)
        try await rig.wait(first, for: "completed")
        try await rig.wait(second, for: "completed")
    }

    @Test func atMostMaxConcurrentRunAndHighPriorityGoesFirst() async throws {
        let rig = try await Rig(config: "transfers:\n  maxConcurrent: 1\n")
        defer { rig.end() }
        let blocker = try await rig.add(
            TransferRequest(url: rig.server.url("/blocker?hang=1"), destination: rig.server.destination("blocker.bin")))
        try await rig.wait(blocker, for: "running")
        let low = try await rig.add(
            TransferRequest(url: rig.server.url("/low?size=1000"), destination: rig.server.destination("low.bin"), priority: .low))
        let high = try await rig.add(
            TransferRequest(url: rig.server.url("/high?size=1000"), destination: rig.server.destination("high.bin"), priority: .high))
        let queued = try await rig.get(low)
        #expect(queued["state"] as? String == "waiting")
        #expect(queued["waitingFor"] as? [String] == [])
        _ = try await rig.call("Cancel", [.string(blocker)])
        try await rig.wait(low, for: "completed")
        try await rig.wait(high, for: "completed")
        let order = try rig.server.requests("/high").map(\.n) + rig.server.requests("/low").map(\.n)
        #expect(order.count == 2)
        let log = try String(contentsOf: rig.server.directory.appendingPathComponent("requests.log"), encoding: .utf8)
        let highAt = try #require(log.range(of: "\"/high\"")), lowAt = try #require(log.range(of: "\"/low\""))
        #expect(highAt.lowerBound < lowAt.lowerBound, "\(log)")
    }

    @Test func theDeadlineFailsAHungTransfer() async throws {
        let rig = try await Rig()
        defer { rig.end() }
        let id = try await rig.add(
            TransferRequest(url: rig.server.url("/stuck?hang=1"), destination: rig.server.destination("stuck.bin"), timeout: 1))
        let failed = try await rig.wait(id, for: "failed")
        #expect((failed["error"] as? String)?.contains("deadline") == true, "\(failed)")
    }

    @Test func aTrickleBelowTheFloorSuspendsWithANextAttempt() async throws {
        let rig = try await Rig(config: "transfers:\n  throughputWindow: 1\n  throughputFloor: 1024\n")
        defer { rig.end() }
        let id = try await rig.add(
            TransferRequest(url: rig.server.url("/drip?size=100000&trickle=100"), destination: rig.server.destination("drip.bin")))
        let suspended = try await rig.wait(id, for: "suspended")
        let next = try #require(suspended["nextAttempt"] as? Double)
        #expect(next > Date().timeIntervalSince1970)
        #expect(suspended["attempts"] as? Int == 0)
    }

    // MARK: Bad input

    @Test func badRequestsAreRefusedNamingTheProblemAndLeaveNoFile() async throws {
        let rig = try await Rig()
        defer { rig.end() }
        let directory = rig.server.directory.path
        let good = rig.server.url("/x?size=10")
        let cases: [(TransferRequest, String, String)] = [
            (TransferRequest(url: "not a url", destination: "\(directory)/a"), "org.freedesktop.DBus.Error.InvalidArgs", "url"),
            (TransferRequest(url: "ftp://host/file", destination: "\(directory)/b"), "org.freedesktop.DBus.Error.InvalidArgs", "unsupported scheme"),
            (TransferRequest(url: good, destination: "relative/c"), "org.freedesktop.DBus.Error.InvalidArgs", "not an absolute path"),
            (TransferRequest(url: good, destination: "\(directory)/missing/d"), "org.freedesktop.DBus.Error.InvalidArgs", "does not exist"),
            (TransferRequest(url: good, upload: "\(directory)/gone.txt"), "org.freedesktop.DBus.Error.InvalidArgs", "does not exist"),
            (TransferRequest(url: good, destination: "\(directory)/e", sha256: "xyz"), "org.freedesktop.DBus.Error.InvalidArgs", "sha256"),
        ]
        for (request, name, text) in cases {
            let failure = await rig.failure("Add", [request.busValue])
            #expect(failure?.name == name, "\(request.url) \(request.destination ?? "-")")
            #expect(failure?.message.contains(text) == true, "\(failure?.message ?? "accepted") for \(text)")
        }
        // Unknown keys and wrong types.
        let unknown = await rig.failure("Add", [.variantDictionary([("url", .string(good)), ("colour", .string("red"))])])
        #expect(unknown?.message.contains("colour: unknown key") == true)
        let wrongType = await rig.failure("Add", [.variantDictionary([("url", .string(good)), ("destination", .int32(3))])])
        #expect(wrongType?.message.contains("destination: must be a string") == true)
        // A second live transfer to the same destination.
        let destination = "\(directory)/twice.bin"
        let first = try await rig.add(TransferRequest(url: good, destination: destination, beginAfter: 3600))
        let second = await rig.failure("Add", [TransferRequest(url: good, destination: destination).busValue])
        #expect(second?.name == TransfersBus.destinationBusyError)
        #expect(second?.message.contains(first) == true)
        // Unknown ids.
        #expect(await rig.failure("Get", [.string("nope")])?.name == TransfersBus.notFoundError)
        let made = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !["requests.log", "port"].contains($0) }  // the server's own
        #expect(made.isEmpty, "\(made)")
    }

    @Test func anotherUserCannotSeeOrTouchATransfer() async throws {
        guard CurrentProcess.isRoot, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/busctl")
        else { return }
        let rig = try await Rig()
        defer { rig.end() }
        let id = try await rig.add(
            TransferRequest(url: rig.server.url("/mine?size=10"), destination: rig.server.destination("mine.bin"), beginAfter: 3600))
        // The bus directory must let nobody (65534) reach the socket.
        chmod(rig.harness.bus.directory.path, 0o755)
        func asNobody(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            try await NobodyBusctl.call(address: rig.harness.bus.address, TransfersBus.busName, TransfersBus.objectPath, Self.interface, arguments)
        }
        let list = try await asNobody(["List"])
        #expect(list.status == 0 && list.output.contains("\"[]\""), "\(list.output)")
        let get = try await asNobody(["Get", "s", id])
        #expect(get.status != 0 && get.output.contains("no transfer"), "\(get.output)")
        let cancel = try await asNobody(["Cancel", "s", id])
        #expect(cancel.status != 0, "\(cancel.output)")
        #expect(try await rig.get(id)["state"] as? String == "waiting")
        // Nobody's own transfer: the hook runs as nobody, and the file is handed to nobody.
        let shared = rig.server.destination("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        chmod(shared, 0o777)
        let destination = shared + "/theirs.bin"
        let added = try await asNobody([
            "Add", "a{sv}", "3", "url", "s", rig.server.url("/theirs?size=100"), "destination", "s", destination,
            "onComplete", "s", "id -u > \(shared)/hook-uid",
        ])
        #expect(added.status == 0, "\(added.output)")
        let theirs = try #require(added.output.split(separator: "\"").dropFirst().first.map(String.init))
        try await rig.wait(theirs, for: "completed")
        #expect(FileSystem.owner(of: destination) == 65534)
        // The shell creates the file before `id -u` writes to it: wait for the line, not the file.
        let hookUID = { (try? String(contentsOfFile: shared + "/hook-uid", encoding: .utf8)) ?? "" }
        _ = await eventually(timeout: 10, every: .milliseconds(100)) { hookUID().hasSuffix("\n") }
        #expect(hookUID() == "65534\n")
        // Root sees both; nobody only its own.
        let nobodyList = try await asNobody(["List"])
        #expect(nobodyList.output.contains(theirs) && !nobodyList.output.contains(id))
    }

    @Test func aFullDiskFailsClearlyWithoutAPartialFile() async throws {
        guard CurrentProcess.isRoot else { return }
        let rig = try await Rig()
        defer { rig.end() }
        let mountPoint = rig.server.destination("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mount = try await Program.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint])
        // Some sandboxes refuse mounts even to root: nothing to test there.
        guard mount.status == 0 else { return }
        // Unmounted however the test ends (a defer cannot await the umount).
        var failure: (any Error)?
        do { try await Self.fillTheDisk(rig, mountPoint) } catch { failure = error }
        _ = try? await Program.run("/bin/umount", ["-l", mountPoint])
        if let failure { throw failure }
    }

    /// The state directory on a 1 MiB tmpfs that fills up, then turns read-only: every Add
    /// either lands in the queue or is refused naming why, the daemon keeps answering, the
    /// database (queue and history) passes `PRAGMA integrity_check`, and after a restart every
    /// transfer it accepted is there, once.
    @Test func aFullOrReadOnlyStateDirectoryNeverCorruptsTheQueue() async throws {
        guard CurrentProcess.isRoot else { return }
        var mounted: String?
        let rig = try await Rig { harness in
            try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
            let mount = try await Program.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", harness.stateDirectory])
            if mount.status == 0 { mounted = harness.stateDirectory }
        }
        defer { rig.end() }
        // Some sandboxes refuse mounts even to root: nothing to test there.
        guard let state = mounted else { return }
        var failure: (any Error)?
        do { try await Self.fillTheStateDirectory(rig, state) } catch { failure = error }
        _ = try? await Program.run("/bin/umount", ["-l", state])
        if let failure { throw failure }
    }

    static func fillTheStateDirectory(_ rig: Rig, _ state: String) async throws {
        var accepted: [String] = []
        var refusals: [String] = []
        func add(_ n: Int) async {
            let request = TransferRequest(url: rig.server.url("/f\(n)?size=1000"), destination: rig.server.destination("f\(n).bin"))
            do {
                accepted.append(try await rig.add(request))
            } catch {
                refusals.append("\(error)")
            }
        }
        for n in 0..<5 { await add(n) }
        #expect(accepted.count == 5, "\(refusals)")
        // Fill what is left, then keep adding (and cancelling) while nothing fits.
        let filler = FileHandle(forWritingAtPath: {
            FileManager.default.createFile(atPath: state + "/filler", contents: nil)
            return state + "/filler"
        }())
        let chunk = Data(count: 64 * 1024)
        while (try? filler?.write(contentsOf: chunk)) != nil {}
        try? filler?.close()
        for n in 5..<40 { await add(n) }
        if let last = accepted.last { _ = await rig.failure("Cancel", [.string(last)]) }
        #expect(!refusals.isEmpty, "a full state directory refused nothing")
        for refusal in refusals {
            #expect(["full", "space", "ENOSPC"].contains { refusal.contains($0) }, "\(refusal)")
        }
        // Read-only now: refused as well, and named.
        let readOnly = try await Program.run("/bin/mount", ["-o", "remount,ro", state])
        if readOnly.status == 0 {
            let before = refusals.count
            for n in 40..<45 { await add(n) }
            #expect(refusals.count > before)
            for refusal in refusals[before...] {
                #expect(["read-only", "readonly", "EROFS", "full", "space"].contains { refusal.contains($0) }, "\(refusal)")
            }
        }
        // Still serving.
        let status = try await rig.harness.call("GetStatus", on: rig.client)
        #expect(status.first?.stringValue?.contains("\"lowPowerMode\"") == true)
        #expect(await rig.harness.stop() == 0)
        let check = try await Program.run("/usr/bin/python3", ["-c", """
            import sqlite3, sys
            print(sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True).execute("PRAGMA integrity_check").fetchone()[0])
            """, state + "/" + TransferStore.fileName])
        #expect(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(check.stdout)\(check.stderr)")
        // Room again: every accepted transfer is there, once.
        _ = try await Program.run("/bin/mount", ["-o", "remount,rw", state])
        try FileManager.default.removeItem(atPath: state + "/filler")
        let store = try TransferStore(path: state + "/" + TransferStore.fileName)
        let stored = try store.list().map(\.id)
        #expect(stored.sorted() == accepted.sorted(), "accepted \(accepted), stored \(stored)")
    }

    static func fillTheDisk(_ rig: Rig, _ mountPoint: String) async throws {
        // Less than 5 % free: a transfer waits for storage, and starts once there is room (a
        // reload re-evaluates at once instead of the slow re-check).
        let filler = mountPoint + "/filler"
        try Data(count: 1_000_000).write(to: URL(fileURLWithPath: filler))
        let small = mountPoint + "/small.bin"
        let waiting = try await rig.add(TransferRequest(url: rig.server.url("/small?size=1000"), destination: small))
        let held = try await rig.wait(waiting, for: "waiting")
        #expect(held["waitingFor"] as? [String] == ["storage"])
        try FileManager.default.removeItem(atPath: filler)
        kill(try #require(rig.harness.process).processIdentifier, SIGHUP)
        try await rig.wait(waiting, for: "completed")
        try FileManager.default.removeItem(atPath: small)

        let destination = mountPoint + "/big.bin"
        let id = try await rig.add(TransferRequest(url: rig.server.url("/big?size=4000000"), destination: destination))
        let failed = try await rig.wait(id, for: "failed")
        let error = failed["error"] as? String ?? ""
        #expect(error.contains("ENOSPC") || error.contains("space"), "\(error)")
        #expect(!FaultHTTPServer.exists(destination))
        #expect(!FaultHTTPServer.exists(destination + ".part"))
    }
}
