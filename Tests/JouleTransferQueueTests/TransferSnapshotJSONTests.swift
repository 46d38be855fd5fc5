@testable import JouleWire
@testable import JouleHardware
@testable import JouleTransferQueue
import Testing

/// `TransferSnapshot(json:)` reads what `Transfer.json` writes (the daemon's `Get`), and names
/// the key of anything else.
@Suite struct TransferSnapshotJSONTests {
    static func transfer(_ state: TransferState, total: Int64? = 4096, lastError: String? = nil) -> Transfer {
        var transfer = Transfer(
            id: "0f8e2c1a-7d3b-4c55-9a10-2b6f9e1d4c3a", ownerUID: 1000, url: "https://example.org/a.iso",
            destination: "/home/u/a.iso", requirements: TransferRequirements(discretionary: true), priority: .high,
            batch: "nightly", createdAt: 1_700_000_000, deadline: 1_700_604_800.25, durableBytes: 1024,
            attemptsWithoutProgress: 2, lastError: lastError, state: state)
        transfer.validators.totalLength = total
        return transfer
    }

    static func object(_ transfer: Transfer) -> JSONObject {
        guard case .object(let object) = transfer.json else { fatalError("Transfer.json is an object") }
        return object
    }

    static let states: [TransferState] = [
        .waiting(unmet: [.ac, .unmetered, .beginAfter]), .waiting(unmet: []), .running, .suspended(until: nil),
        .suspended(until: 1_700_000_100.5), .retrying(next: 1_700_000_030.125), .completed, .failed(reason: "404 Not Found"),
        .cancelled,
    ]

    @Test(arguments: states) func everyStateReadsBack(_ state: TransferState) throws {
        let written = Self.transfer(state, lastError: "connection reset")
        let snapshot = try TransferSnapshot(json: written.json.serialized)
        #expect(snapshot.state == state)
        #expect(snapshot.id == written.id)
        #expect(snapshot.url == written.url)
        #expect(snapshot.destination == "/home/u/a.iso")
        #expect(snapshot.discretionary)
        #expect(snapshot.priority == .high)
        #expect(snapshot.batch == "nightly")
        #expect(snapshot.bytes == 1024)
        #expect(snapshot.totalBytes == 4096)
        #expect(snapshot.attempts == 2)
        #expect(snapshot.deadline == 1_700_604_800.25)
        #expect(snapshot.waitingFor == state.waitingFor)
        #expect(snapshot.nextAttempt == state.nextAttempt)
        #expect(snapshot.error == (state == .failed(reason: "404 Not Found") ? "404 Not Found" : "connection reset"))
    }

    @Test func nullsReadAsNil() throws {
        var transfer = Self.transfer(.running, total: nil)
        transfer.destination = nil
        transfer.uploadSource = "/home/u/up.bin"
        transfer.batch = nil
        let snapshot = try TransferSnapshot(json: transfer.json)
        #expect(snapshot.destination == nil)
        #expect(snapshot.batch == nil)
        #expect(snapshot.totalBytes == nil)
        #expect(snapshot.error == nil)
        #expect(snapshot.fraction == nil)
    }

    @Test func keysItDoesNotKnowAreIgnored() throws {
        var object = Self.object(Self.transfer(.completed))
        object["session"] = .string("com.example.sync")
        #expect(try TransferSnapshot(json: .object(object)).state == .completed)
    }

    /// Each broken key is named in the error, with what was expected.
    @Test(arguments: [
        ("bytes", nil, "bytes: missing"),
        ("totalBytes", JSONValue.string("4096"), "totalBytes: expected a count of bytes or null, got \"4096\""),
        ("bytes", .int(-1), "bytes: expected a count of bytes, got -1"),
        ("state", .string("paused"), "state: expected waiting, running, suspended, retrying, completed, failed, cancelled, got \"paused\""),
        ("priority", .string("urgent"), "priority: expected high, normal or low, got \"urgent\""),
        ("discretionary", .int(1), "discretionary: expected true or false, got 1"),
        ("deadline", .null, "deadline: expected Unix seconds, got null"),
        ("waitingFor", .array([.string("ac"), .string("wifi")]), "waitingFor[1]: expected ac, unmetered, battery, lowPowerMode, thermal, storage, beginAfter, batch, got \"wifi\""),
    ] as [(String, JSONValue?, String)])
    func aBadKeyIsNamed(_ key: String, _ value: JSONValue?, _ message: String) {
        var object = Self.object(Self.transfer(.waiting(unmet: [.ac])))
        object[key] = value
        let error = #expect(throws: JSONDecodingError.self) { try TransferSnapshot(json: .object(object)) }
        #expect(error?.description == message)
    }

    @Test func retryingWithoutATimeIsRefused() {
        var object = Self.object(Self.transfer(.retrying(next: 1_700_000_030)))
        object["nextAttempt"] = .null
        #expect(throws: JSONDecodingError(key: "nextAttempt", message: "a retrying transfer needs the time of its next attempt")) {
            try TransferSnapshot(json: .object(object))
        }
    }

    @Test func aListNamesTheElement() throws {
        let good = Self.transfer(.running)
        var bad = Self.object(Self.transfer(.running))
        bad["priority"] = .string("urgent")
        let text = JSONValue.array([good.json, .object(bad)]).serialized
        #expect(throws: JSONDecodingError(key: "[1].priority", message: "expected high, normal or low, got \"urgent\"")) {
            try TransferSnapshot.list(json: text)
        }
        let two = try TransferSnapshot.list(json: Transfer.json([good, Self.transfer(.completed)]).serialized)
        #expect(two.map(\.state) == [.running, .completed])
        #expect(try TransferSnapshot.list(json: "[]").isEmpty)
    }

    @Test func notJSONOrNotAnObjectIsRefused() {
        #expect(throws: JSONDecodingError.self) { try TransferSnapshot(json: "{\"id\":") }
        #expect(throws: JSONDecodingError(key: "", message: "expected a transfer object, got [1]")) {
            try TransferSnapshot(json: "[1]")
        }
        #expect(throws: JSONDecodingError(key: "", message: "expected an array of transfers")) {
            try TransferSnapshot.list(json: "{}")
        }
    }

    @Test func fractionFollowsBytes() {
        var snapshot = TransferSnapshot(id: "a", url: "http://h/x", destination: "/x", state: .running, bytes: 52, totalBytes: 100, deadline: 0)
        #expect(snapshot.fraction == 0.52)
        snapshot.totalBytes = 0
        #expect(snapshot.fraction == 0)
        snapshot.state = .completed
        #expect(snapshot.fraction == 1)
    }
}
