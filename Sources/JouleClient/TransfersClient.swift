import JouleWire
import JouleHardware
import JouleTransferQueue

/// A client of `org.joule.Transfers1`, the deferred transfers of a running `joule daemon`
/// (issue 13), for `joule transfer` and `BackgroundTransferSession`. The daemon is found as
/// `DaemonClient` finds it: the session bus first, then the system bus.
public final class TransfersClient: Sendable {
    public let bus: DaemonClient.Bus
    private let connection: BusConnection

    init(bus: DaemonClient.Bus, connection: BusConnection) {
        self.bus = bus
        self.connection = connection
    }

    /// The daemon's transfers on the first bus where `org.joule.Transfers1` has an owner;
    /// `TransfersError.notRunning` when neither bus has one.
    public static func connect(
        environment: [String: String] = CurrentProcess.environment()
    ) async throws(TransfersError) -> TransfersClient {
        guard let (bus, connection) = await DaemonClient.connection(owning: TransfersBus.busName, environment: environment) else {
            throw .notRunning
        }
        return TransfersClient(bus: bus, connection: connection)
    }

    /// The daemon on the bus at `address` (a private bus in tests), as the `bus` given.
    public static func connect(address: String, as bus: DaemonClient.Bus) async throws(TransfersError) -> TransfersClient {
        do throws(BusError) {
            return TransfersClient(bus: bus, connection: try await BusConnection.open(address: address))
        } catch {
            throw TransfersError(error)
        }
    }

    /// The address of the bus the daemon was found on.
    public var address: String { connection.address }

    /// `Add`: queues `request` (checked first with `validated()`, so a bad one is refused
    /// without a round trip) and returns the new transfer's id.
    public func add(_ request: TransferRequest) async throws(TransfersError) -> String {
        let checked: TransferRequest
        do throws(TransferRequest.Invalid) { checked = try request.validated() } catch { throw .invalid(error) }
        return try await string("Add", [checked.busValue])
    }

    /// `Cancel`. A finished transfer is refused with `TransfersBus.alreadyFinishedError`.
    public func cancel(_ id: String) async throws(TransfersError) {
        _ = try await call("Cancel", [.string(id)])
    }

    /// `Get`: the transfer object as the daemon wrote it, and decoded.
    public func get(_ id: String) async throws(TransfersError) -> (json: String, transfer: TransferSnapshot) {
        let text = try await string("Get", [.string(id)])
        do throws(JSONDecodingError) {
            return (text, try TransferSnapshot(json: text))
        } catch {
            throw .malformedReply(operation: "Get", detail: error.description)
        }
    }

    /// `List`: the caller's transfers (root: everybody's), oldest first, as text and decoded.
    public func list() async throws(TransfersError) -> (json: String, transfers: [TransferSnapshot]) {
        try await listing("List", [])
    }

    /// `ListSession`: the caller's transfers added with `session` = `identifier`.
    public func listSession(_ identifier: String) async throws(TransfersError) -> (json: String, transfers: [TransferSnapshot]) {
        try await listing("ListSession", [.string(identifier)])
    }

    /// The full id for `text`: itself when it is a whole id, else the one visible transfer
    /// whose id starts with it (as `joule transfer list` shortens them).
    public func resolve(_ text: String) async throws(TransfersError) -> String {
        if text.utf8.count == 36 { return text }
        return try Self.match(text, among: try await list().transfers.map(\.id))
    }

    /// The id among `ids` equal to `text` or, failing that, the only one starting with it.
    public static func match(_ text: String, among ids: [String]) throws(TransfersError) -> String {
        if ids.contains(text) { return text }
        let fits = text.isEmpty ? [] : ids.filter { $0.hasPrefix(text.lowercased()) }
        switch fits.count {
        case 0: throw .refused(name: TransfersBus.notFoundError, message: "no transfer \(text)")
        case 1: return fits[0]
        default: throw .ambiguous(prefix: text, ids: fits)
        }
    }

    /// `TransferChanged` and `TransferFinished` from now on, for every transfer the bus lets
    /// this client hear (filter by id). The match is in place when this returns, so a caller
    /// that subscribes and then reads a state misses nothing between. The stream ends when the
    /// daemon leaves the bus, when the connection closes, or when the consumer stops.
    public func events() async throws(TransfersError) -> AsyncStream<TransferEvent> {
        let rule = "type='signal',sender='\(TransfersBus.busName)',interface='\(TransfersBus.interfaceName)',"
            + "path='\(TransfersBus.objectPath)'"
        do throws(BusError) {
            let subscription = try await DaemonSignals.subscribe(on: connection, matching: rule, ownedBy: TransfersBus.busName)
            return subscription.stream(holder: self, bufferingNewest: 1024) { message in
                TransferEvent(member: message.member, arguments: message.arguments).map { [$0] } ?? []
            }
        } catch {
            throw TransfersError(error)
        }
    }

    public func close() async { await connection.close() }

    private func listing(_ member: String, _ arguments: [BusValue]) async throws(TransfersError) -> (json: String, transfers: [TransferSnapshot]) {
        let text = try await string(member, arguments)
        do throws(JSONDecodingError) {
            return (text, try TransferSnapshot.list(json: text))
        } catch {
            throw .malformedReply(operation: member, detail: error.description)
        }
    }

    private func string(_ member: String, _ arguments: [BusValue]) async throws(TransfersError) -> String {
        let reply = try await call(member, arguments)
        guard reply.count == 1, let text = reply[0].stringValue else {
            throw .malformedReply(operation: member, detail: "expected one string, got \(reply)")
        }
        return text
    }

    private func call(_ member: String, _ arguments: [BusValue]) async throws(TransfersError) -> [BusValue] {
        do throws(BusError) {
            return try await connection.call(
                destination: TransfersBus.busName, path: TransfersBus.objectPath,
                interface: TransfersBus.interfaceName, member: member, arguments: arguments)
        } catch {
            throw TransfersError(error)
        }
    }
}
