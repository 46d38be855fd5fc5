@testable import JouleWire
@testable import JouleHardware
@testable import JouleTransferQueue
@testable import JouleClient
import Testing

/// The pure parts of `TransfersClient` and the Swift API: id prefixes, signals as events,
/// D-Bus errors as the daemon's words, and a background configuration's stamp.
@Suite struct TransfersClientTests {
    static let ids = ["0f8e2c1a-7d3b", "0f8e9999-0000", "a1b2c3d4-eeee"]

    @Test func aPrefixResolvesWhenUnique() throws {
        #expect(try TransfersClient.match("a1b2", among: Self.ids) == "a1b2c3d4-eeee")
        #expect(try TransfersClient.match("0F8E2", among: Self.ids) == "0f8e2c1a-7d3b")
        #expect(try TransfersClient.match("0f8e9999-0000", among: Self.ids) == "0f8e9999-0000")
        #expect(throws: TransfersError.ambiguous(prefix: "0f8e", ids: ["0f8e2c1a-7d3b", "0f8e9999-0000"])) {
            try TransfersClient.match("0f8e", among: Self.ids)
        }
        let missing = #expect(throws: TransfersError.self) { try TransfersClient.match("ffff", among: Self.ids) }
        #expect(missing?.isNotFound == true)
        #expect(missing?.description == "no transfer ffff")
        #expect((try? TransfersClient.match("", among: Self.ids)) == nil)
    }

    @Test func signalsBecomeEvents() {
        #expect(TransferEvent(member: "TransferChanged", arguments: [.string("x"), .string("running")]) == .changed(id: "x", state: "running"))
        let finished = TransferEvent(member: "TransferFinished", arguments: [.string("x"), .string("failed"), .string("/d/f")])
        #expect(finished == .finished(id: "x", state: "failed", path: "/d/f"))
        #expect(finished?.isFinal == true)
        #expect(finished?.path == "/d/f")
        #expect(TransferEvent.changed(id: "x", state: "completed").path == nil)
        #expect(TransferEvent.changed(id: "x", state: "retrying").isFinal == false)
        #expect(TransferEvent.changed(id: "x", state: "cancelled").isFinal == true)
        #expect(TransferEvent(member: "TransferChanged", arguments: [.string("x")]) == nil)
        #expect(TransferEvent(member: "TransferChanged", arguments: [.string("x"), .uint32(1)]) == nil)
        #expect(TransferEvent(member: "Other", arguments: [.string("x"), .string("running")]) == nil)
    }

    @Test func theDaemonsRefusalReadsAsItsMessage() {
        let refused = TransfersError(BusError.remote(
            operation: "Add", target: TransfersBus.busName, name: TransfersBus.destinationBusyError,
            message: "destination: /d/f is written by transfer 0f8e2c1a"))
        #expect(refused.description == "destination: /d/f is written by transfer 0f8e2c1a")
        #expect(refused.errorName == TransfersBus.destinationBusyError)
        let gone = TransfersError(BusError.remote(
            operation: "Get", target: TransfersBus.busName, name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "x"))
        #expect(gone == .notRunning)
        #expect(gone.description.hasPrefix("joule daemon is not running on the session or system bus"))
    }

    @Test func aBackgroundConfigurationStampsItsRequests() {
        var configuration = BackgroundTransferConfiguration.background(withIdentifier: "com.example.sync")
        #expect(configuration.timeoutIntervalForResource == 604_800)
        #expect(configuration.allowsExpensiveNetworkAccess)
        #expect(!configuration.isDiscretionary)
        let plain = configuration.stamp(TransferRequest(url: "https://h/x", destination: "/d/x"))
        #expect(plain == TransferRequest(url: "https://h/x", destination: "/d/x", timeout: 604_800, session: "com.example.sync"))
        configuration.isDiscretionary = true
        configuration.allowsExpensiveNetworkAccess = false
        configuration.timeoutIntervalForResource = 3600
        let strict = configuration.stamp(TransferRequest(url: "https://h/x", destination: "/d/x", timeout: 60, session: "other"))
        #expect(strict == TransferRequest(
            url: "https://h/x", destination: "/d/x", discretionary: true, unmeteredOnly: true, timeout: 60, session: "com.example.sync"))
    }
}
