import Foundation
import JouleWire
import JouleHardware
import JouleEnergy
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Bad input on every method of org.joule.Energy1, Transfers1 and Apps1 (issue 19, "D-Bus
/// input"): wrong signatures, 1 MiB strings, unknown enum values, dictionaries with unknown and
/// missing keys, and calls from another uid with polkit saying no. Each must be answered with a
/// D-Bus error naming the problem, within the call timeout, with the daemon still running and
/// every object's state as it was.
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") {
    await DBusMock.isAvailable && PrivateBusDaemon.executable != nil
})
struct BusInputTests {
    /// One call that must fail.
    struct BadCall: Sendable, CustomStringConvertible {
        var object: String
        var interface: String
        var member: String
        var arguments: [BusValue]
        /// The D-Bus error name expected.
        var error: String
        /// What the message must say.
        var says: String

        init(_ object: String, _ member: String, _ arguments: [BusValue], _ error: String, _ says: String, interface: String? = nil) {
            self.object = object
            self.interface = interface ?? object
            self.member = member
            self.arguments = arguments
            self.error = error
            self.says = says
        }

        var path: String { "/" + object.replacingOccurrences(of: ".", with: "/") }
        var description: String {
            "\(interface).\(member)(\(arguments.map { $0.signature }.joined(separator: ", ")))"
        }
    }

    static let energy = EnergyBus.interfaceName, transfers = TransfersBus.interfaceName, apps = AppsBus.interfaceName
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let mebibyte = String(repeating: "x", count: 1 << 20)
    static let url = BusValue.string("http://127.0.0.1:9/file")

    /// A request dictionary: `url` and a destination, then `extra`. Each bad call has one flaw,
    /// refused before the destination's directory is looked at.
    static func request(_ extra: [(String, BusValue)], url: BusValue? = BusInputTests.url) -> BusValue {
        .variantDictionary((url.map { [("url", $0)] } ?? []) + [("destination", .string("/nonexistent/joule-bus-input/file"))] + extra)
    }

    static let badCalls: [BadCall] = {
        var calls: [BadCall] = [
            // org.joule.Energy1
            BadCall(energy, "SetLowPowerMode", [.int32(1)], invalidArgs, "expecting 's'"),
            BadCall(energy, "SetLowPowerMode", [], invalidArgs, "expecting 's'"),
            BadCall(energy, "SetLowPowerMode", [.string("on"), .string("on")], invalidArgs, "expecting 's'"),
            BadCall(energy, "SetLowPowerMode", [.string(mebibyte)], invalidArgs, "mode must be \"on\", \"off\" or \"auto\""),
            BadCall(energy, "SetLowPowerMode", [.string("sideways")], invalidArgs, "sideways"),
            BadCall(energy, "GetStatus", [.string("all")], invalidArgs, "expecting ''"),
            BadCall(energy, "GetMetrics", [.uint32(1)], invalidArgs, "expecting ''"),
            BadCall(energy, "GetHistory", [.string("0"), .string("1")], invalidArgs, "expecting 'dd'"),
            BadCall(energy, "GetHistory", [.double(.nan), .double(0)], invalidArgs, "since and until"),
            BadCall(energy, "GetHistory", [.double(2), .double(1)], invalidArgs, "since <= until"),
            BadCall(energy, "GetHistory", [.double(-.infinity), .double(.infinity)], invalidArgs, "since and until"),
            BadCall(energy, "SetChargeLimit", [.int32(80)], invalidArgs, "expecting 'uu'"),
            BadCall(energy, "SetChargeLimit", [.string("75-80")], invalidArgs, "expecting 'uu'"),
            BadCall(energy, "SetChargeLimit", [.uint32(80), .uint32(75)], invalidArgs, "charge limit start (80) must be below its end (75)"),
            BadCall(energy, "SetChargeLimit", [.uint32(0), .uint32(101)], invalidArgs, "charge limit end must be 1-100 %, not 101"),
            BadCall(energy, "SetChargeLimit", [.uint32(100), .uint32(100)], invalidArgs, "charge limit start must be 0-99 %"),
            BadCall(energy, "ChargeFullOnce", [.bool(true)], invalidArgs, "expecting ''"),
            BadCall(energy, "Set", [.string(energy), .string("ChargeLimit"), .variant(.variantDictionary([("end", .uint32(80))]))],
                    "org.freedesktop.DBus.Error.PropertyReadOnly", "ChargeLimit", interface: "org.freedesktop.DBus.Properties"),
            BadCall(energy, "SetLowPowerModes", [.string("on")], "org.freedesktop.DBus.Error.UnknownMethod", "SetLowPowerModes"),
            BadCall(energy, "Set", [.string(energy), .string("LowPowerMode"), .variant(.bool(true))],
                    "org.freedesktop.DBus.Error.PropertyReadOnly", "LowPowerMode", interface: "org.freedesktop.DBus.Properties"),
            BadCall(energy, "Get", [.string(energy), .string(mebibyte)],
                    "org.freedesktop.DBus.Error.UnknownProperty", "or property xxxx", interface: "org.freedesktop.DBus.Properties"),
            // org.joule.Transfers1
            BadCall(transfers, "Add", [.string("https://example.org/f")], invalidArgs, "expecting 'a{sv}'"),
            BadCall(transfers, "Add", [.stringDictionary([("url", "https://example.org/f")])], invalidArgs, "expecting 'a{sv}'"),
            BadCall(transfers, "Add", [.variantDictionary([])], invalidArgs, "url: missing"),
            BadCall(transfers, "Add", [request([], url: nil)], invalidArgs, "url: missing"),
            BadCall(transfers, "Add", [request([], url: .int32(5))], invalidArgs, "url: must be a string (s), not i"),
            BadCall(transfers, "Add", [request([], url: .string("https://" + mebibyte))], invalidArgs, "url: longer than 8192 bytes"),
            BadCall(transfers, "Add", [request([], url: .string(mebibyte))], invalidArgs, "is not a URL"),
            BadCall(transfers, "Add", [request([("url", url)])], invalidArgs, "url: given twice"),
            BadCall(transfers, "Add", [request([("colour", .string("red"))])], invalidArgs, "colour: unknown key"),
            BadCall(transfers, "Add", [request([(mebibyte, .string("red"))])], invalidArgs, "unknown key"),
            BadCall(transfers, "Add", [request([("priority", .string("urgent"))])], invalidArgs, "priority: must be high, normal or low"),
            BadCall(transfers, "Add", [request([("method", .string("DELETE"))])], invalidArgs, "method: must be GET, PUT or POST"),
            BadCall(transfers, "Add", [request([("timeout", .string("soon"))])], invalidArgs, "timeout: must be seconds (d), not s"),
            BadCall(transfers, "Add", [request([("discretionary", .string("yes"))])], invalidArgs, "discretionary: must be a boolean"),
            BadCall(transfers, "Add", [request([("headers", .string("Accept: */*"))])], invalidArgs, "headers: must be an array"),
            BadCall(transfers, "Add", [request([("headers", .array(elementSignature: "s", [.string("X-Big: " + mebibyte)]))])],
                    invalidArgs, "longer than 8192 bytes"),
            BadCall(transfers, "Add", [request([("onComplete", .string(mebibyte))])], invalidArgs, "onComplete: longer than 4096 bytes"),
            BadCall(transfers, "Add", [request([("session", .string(mebibyte))])], invalidArgs, "session: must be 1 to 255 bytes"),
            BadCall(transfers, "Add", [request([("batch", .string(mebibyte))])], invalidArgs, "batch: must be 1 to 255 bytes"),
            BadCall(transfers, "Add", [request([("sha256", .string(mebibyte))])], invalidArgs, "sha256: must be 64 hex digits"),
            BadCall(transfers, "Add", [.variantDictionary([("url", url), ("destination", .string("/" + mebibyte))])],
                    invalidArgs, "destination: not a usable path"),
            BadCall(transfers, "Cancel", [.uint32(1)], invalidArgs, "expecting 's'"),
            BadCall(transfers, "Cancel", [.string(mebibyte)], TransfersBus.notFoundError, "no transfer xxxx"),
            BadCall(transfers, "Get", [], invalidArgs, "expecting 's'"),
            BadCall(transfers, "Get", [.string(mebibyte)], TransfersBus.notFoundError, "no transfer xxxx"),
            BadCall(transfers, "List", [.string("all")], invalidArgs, "expecting ''"),
            BadCall(transfers, "ListSession", [.int32(1)], invalidArgs, "expecting 's'"),
            BadCall(transfers, "ListSession", [.string(mebibyte)], invalidArgs, "1 to 255 bytes"),
            BadCall(transfers, "Pause", [.string("x")], "org.freedesktop.DBus.Error.UnknownMethod", "Pause"),
            // org.joule.Apps1
            BadCall(apps, "Register", [.string("bad")], invalidArgs, "expecting 'a{sv}'"),
            BadCall(apps, "Register", [.variantDictionary([])], invalidArgs, "\"name\" (s) is missing"),
            BadCall(apps, "Register", [.variantDictionary([("name", .int32(5))])], invalidArgs, "\"name\" (s) is missing"),
            BadCall(apps, "Register", [.variantDictionary([("name", .string(mebibyte))])], invalidArgs, "is not an app name"),
            BadCall(apps, "Register", [.variantDictionary([("name", .string("bad")), ("colour", .string("red"))])],
                    invalidArgs, "unknown option \"colour\""),
            BadCall(apps, "Register", [.variantDictionary([("name", .string("bad")), (mebibyte, .string("red"))])],
                    invalidArgs, "unknown option"),
            BadCall(apps, "Register", [.variantDictionary([("name", .string("bad")), ("grace", .string("5"))])], invalidArgs, "\"grace\""),
            BadCall(apps, "Register", [.variantDictionary([("name", .string("bad")), ("grace", .double(.infinity))])], invalidArgs, "\"grace\""),
            BadCall(apps, "Register", [.variantDictionary([("name", .string("bad")), ("suspends", .string("yes"))])],
                    invalidArgs, "\"suspends\" must be a boolean"),
            BadCall(apps, "Attach", [.string("bad")], invalidArgs, "expecting 'sus'"),
            BadCall(apps, "Attach", [.string(mebibyte), .uint32(1), .string("")], AppsBus.unknownAppError, "was not registered"),
            BadCall(apps, "Exited", [.string("bad")], invalidArgs, "expecting 'ss'"),
            BadCall(apps, "Exited", [.string(mebibyte), .string("done")], AppsBus.unknownAppError, "is not an app this connection registered"),
            BadCall(apps, "List", [.string("all")], invalidArgs, "expecting ''"),
            BadCall(apps, "Hibernate", [.string("bad")], "org.freedesktop.DBus.Error.UnknownMethod", "Hibernate"),
        ]
        for request in AppLifecycleRequest.allCases {
            let member = request.rawValue.prefix(1).uppercased() + request.rawValue.dropFirst()
            calls.append(BadCall(apps, member, [.uint32(1)], invalidArgs, "expecting 's'"))
            calls.append(BadCall(apps, member, [.string(mebibyte)], AppsBus.unknownAppError, "no supervised app is named \"xxxx"))
            calls.append(BadCall(apps, member, [.string("nobody-knows")], AppsBus.unknownAppError, "nobody-knows"))
        }
        return calls
    }()

    /// What the three objects show: Energy1's properties, and the transfers and apps as root lists them.
    static func state(_ daemon: DaemonHarness, _ client: BusConnection) async throws -> [String] {
        var state: [String] = []
        for name in ["LowPowerMode", "LowPowerModeSource", "ThermalState", "OnBattery", "Percentage", "WarningLevel", "ChargeLimit"] {
            state.append("\(name)=\(try await daemon.property(name, on: client))")
        }
        for interface in [transfers, apps] {
            let reply = try await client.call(
                destination: interface, path: "/" + interface.replacingOccurrences(of: ".", with: "/"), interface: interface,
                member: "List", arguments: [])
            state.append("\(interface).List=\(reply)")
        }
        return state
    }

    static func answer(_ call: BadCall, on client: BusConnection) async -> Result<[BusValue], BusError> {
        do {
            return .success(try await client.call(
                destination: call.object, path: call.path, interface: call.interface, member: call.member, arguments: call.arguments))
        } catch {
            return .failure(error)
        }
    }

    /// A daemon with polkit saying no to everything, and one waiting transfer of root's.
    static func start() async throws -> (DaemonHarness, DBusMock, BusConnection) {
        let daemon = try await DaemonHarness()
        let polkit = try await DBusMock(.polkitd, address: daemon.bus.address)
        try await daemon.start()
        let client = try await daemon.client()
        _ = try await client.call(
            destination: transfers, path: TransfersBus.objectPath, interface: transfers, member: "Add",
            arguments: [.variantDictionary([
                ("url", url), ("destination", .string(daemon.directory.appendingPathComponent("file").path)),
                ("beginAfter", .double(86_400)),
            ])])
        return (daemon, polkit, client)
    }

    @Test func everyBadCallIsAnErrorNamingTheProblemAndChangesNothing() async throws {
        let (daemon, polkit, client) = try await Self.start()
        defer {
            polkit.stop()
            daemon.end()
        }
        let before = try await Self.state(daemon, client)
        for call in Self.badCalls {
            switch await Self.answer(call, on: client) {
            case .success(let reply):
                Issue.record("\(call) was answered \(reply.map { String("\($0)".prefix(80)) })")
            case .failure(.remote(_, _, let name, let message)):
                #expect(name == call.error, "\(call): \(name): \(message.prefix(300))")
                #expect(message.contains(call.says), "\(call): \(message.prefix(300))")
                // sd-bus's own Properties errors echo the name whole; joule's are cut.
                if call.interface != "org.freedesktop.DBus.Properties" {
                    #expect(message.count <= BusMethodError.maxMessageCharacters + 1, "\(call) echoed \(message.count) characters")
                }
            case .failure(let error):
                Issue.record("\(call) failed on this side: \(error)")
            }
            #expect(daemon.process?.isRunning == true, "the daemon died on \(call): \(daemon.log.suffix(2000))")
        }
        #expect(try await Self.state(daemon, client) == before)
        // No refused Register left its name reserved.
        let socket = try await client.call(
            destination: Self.apps, path: AppsBus.objectPath, interface: Self.apps, member: "Register",
            arguments: [.variantDictionary([("name", .string("bad"))])])
        #expect(socket.first?.stringValue?.hasSuffix("bad.lifecycle") == true, "\(socket)")
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    /// Another user (nobody, through setpriv and busctl) with polkit saying no: every method that
    /// changes something is refused or sees only its own, and polkit was asked about the
    /// caller's bus name, never a pid.
    @Test(.enabled(if: NobodyBusctl.isAvailable, "needs root, setpriv and busctl"))
    func anotherUserWithPolkitSayingNoChangesNothing() async throws {
        let (daemon, polkit, client) = try await Self.start()
        defer {
            polkit.stop()
            daemon.end()
        }
        chmod(daemon.bus.directory.path, 0o755)
        let before = try await Self.state(daemon, client)
        let list = try await client.call(
            destination: Self.transfers, path: TransfersBus.objectPath, interface: Self.transfers, member: "List", arguments: [])
        let transfers = try JSONSerialization.jsonObject(with: Data((list.first?.stringValue ?? "").utf8)) as? [[String: Any]]
        let id = try #require(transfers?.first?["id"] as? String)
        // busctl shows AccessDenied as strerror(EACCES), other errors by their message.
        let refused: [(String, [String], String)] = [
            (Self.energy, ["SetLowPowerMode", "s", "on"], "Access denied"),
            (Self.energy, ["SetLowPowerMode", "s", "auto"], "Access denied"),
            (Self.energy, ["SetChargeLimit", "uu", "50", "60"], "Access denied"),
            (Self.energy, ["ChargeFullOnce"], "Access denied"),
            (Self.transfers, ["Cancel", "s", id], "no transfer"),
            (Self.transfers, ["Get", "s", id], "no transfer"),
            (Self.apps, ["Background", "s", "bad"], "no supervised app is named \"bad\""),
            (Self.apps, ["Attach", "sus", "bad", "1", ""], "was not registered"),
        ]
        for (object, arguments, says) in refused {
            let (status, output) = try await NobodyBusctl.call(
                address: daemon.bus.address, object, "/" + object.replacingOccurrences(of: ".", with: "/"), object, arguments)
            #expect(status != 0 && output.contains(says), "\(object) \(arguments): \(output)")
        }
        // What nobody may do only shows nobody's own: none of root's transfers or apps.
        for object in [Self.transfers, Self.apps] {
            let (status, output) = try await NobodyBusctl.call(
                address: daemon.bus.address, object, "/" + object.replacingOccurrences(of: ".", with: "/"), object, ["List"])
            #expect(status == 0 && output.contains("\"[]\""), "\(object).List as nobody: \(output)")
        }
        // Nobody may register an app of its own (released when its connection closes).
        let register = try await NobodyBusctl.call(
            address: daemon.bus.address, Self.apps, AppsBus.objectPath, Self.apps, ["Register", "a{sv}", "1", "name", "s", "theirs"])
        #expect(register.status == 0, "\(register.output)")
        #expect(try await Self.state(daemon, client) == before)
        // polkit heard of the callers by bus name (system-bus-name), never by pid (unix-process).
        let calls = try await polkit.call("GetMethodCalls", path: DBusMock.Template.polkitd.path, arguments: [.string("CheckAuthorization")])
        let subjects = "\(calls)"
        guard case .array(_, let asked)? = calls.first else { throw HarnessError("GetMethodCalls answered \(calls)") }
        #expect(asked.count == 4, "polkit was asked \(asked.count) times, not once per SetLowPowerMode, SetChargeLimit and ChargeFullOnce: \(subjects)")
        #expect(subjects.contains("system-bus-name"), "\(subjects)")
        #expect(!subjects.contains("unix-process"), "\(subjects)")
        await client.close()
        #expect(await daemon.stop() == 0)
    }
}
