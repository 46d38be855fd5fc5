import JouleWire
import JouleHardware
import JouleTransferQueue

/// The `org.joule.Transfers1` object of `joule daemon` (issue 13): `Add`, `Cancel`, `Get`,
/// `List` and `ListSession`, and the `TransferChanged` / `TransferFinished` signals. Callers
/// are known by the uid the bus gives for their connection (GetConnectionCredentials), never
/// by anything they send. The contract is `data/org.joule.Transfers1.xml`.
package final class TransfersService: Sendable {

    private let bus: BusConnection
    private let scheduler: TransferScheduler

    private let signals: BusSignalEmitter

    private init(bus: BusConnection, scheduler: TransferScheduler, log: @escaping @Sendable (String) -> Void) {
        self.bus = bus
        self.scheduler = scheduler
        signals = BusSignalEmitter(bus: bus, path: TransfersBus.objectPath, interface: TransfersBus.interfaceName, log: log)
    }

    /// Exports the object; the name is requested separately, after the export. `log` hears
    /// signals that could not be sent.
    package static func export(
        on bus: BusConnection, scheduler: TransferScheduler, log: @escaping @Sendable (String) -> Void
    ) async throws(BusError) -> TransfersService {
        let service = TransfersService(bus: bus, scheduler: scheduler, log: log)
        try await bus.export(service.interface(), at: TransfersBus.objectPath)
        return service
    }

    /// Emits the signals for one scheduler notice.
    package func announce(_ notice: TransferScheduler.Notice) async {
        let transfer: Transfer
        switch notice {
        case .changed(let changed): transfer = changed
        case .finished(let finished): transfer = finished
        }
        await signals.signal("TransferChanged", [.string(transfer.id), .string(transfer.state.name)])
        if case .finished = notice {
            await signals.signal(
                "TransferFinished",
                [.string(transfer.id), .string(transfer.state.name), .string(transfer.destination ?? transfer.uploadSource ?? "")])
        }
    }

    // MARK: Methods

    private func interface() -> BusInterface {
        BusInterface(
            name: TransfersBus.interfaceName,
            methods: [
                .init("Add", in: "a{sv}", inNames: ["request"], out: "s", outNames: ["id"]) { call throws(BusMethodError) in
                    guard call.arguments.count == 1 else { throw .invalidArgs("Add takes one a{sv} request") }
                    let request: TransferRequest
                    do {
                        request = try TransferRequest(busValue: call.arguments[0])
                    } catch {
                        throw .invalidArgs("\(error)")
                    }
                    let owner = try await self.caller(call)
                    do {
                        return [.string(try await self.scheduler.add(request, owner: owner).id)]
                    } catch {
                        throw Self.busError(error)
                    }
                },
                .init("Cancel", in: "s", inNames: ["id"]) { call throws(BusMethodError) in
                    let id = try Self.id(call)
                    let uid = try await self.caller(call).uid
                    do {
                        _ = try await self.scheduler.cancel(id, uid: uid)
                    } catch {
                        throw Self.busError(error)
                    }
                    return []
                },
                .init("Get", in: "s", inNames: ["id"], out: "s", outNames: ["json"]) { call throws(BusMethodError) in
                    let id = try Self.id(call)
                    let uid = try await self.caller(call).uid
                    do {
                        return [.string(try await self.scheduler.get(id, uid: uid).json.serialized)]
                    } catch {
                        throw Self.busError(error)
                    }
                },
                .init("List", out: "s", outNames: ["json"]) { call throws(BusMethodError) in
                    try await self.list(call, session: nil)
                },
                .init("ListSession", in: "s", inNames: ["identifier"], out: "s", outNames: ["json"]) { call throws(BusMethodError) in
                    guard call.arguments.count == 1, let session = call.arguments[0].stringValue else {
                        throw .invalidArgs("ListSession takes the session identifier (s)")
                    }
                    // As Add's session key: no transfer can carry a longer one.
                    guard !session.isEmpty, session.utf8.count <= 255 else {
                        throw .invalidArgs("ListSession: the session identifier must be 1 to 255 bytes")
                    }
                    return try await self.list(call, session: session)
                },
            ],
            signals: [
                .init("TransferChanged", "ss", names: ["id", "state"]),
                .init("TransferFinished", "sss", names: ["id", "state", "path"]),
            ])
    }

    private func list(_ call: BusMethodCall, session: String?) async throws(BusMethodError) -> [BusValue] {
        let uid = try await caller(call).uid
        do {
            return [.string(Transfer.json(try await scheduler.list(uid: uid, session: session)).serialized)]
        } catch {
            throw Self.busError(error)
        }
    }

    /// The caller's account, from the bus's record of its connection.
    private func caller(_ call: BusMethodCall) async throws(BusMethodError) -> UserAccount {
        let uid: UInt32
        do {
            uid = try await bus.credentials(of: call.sender).uid
        } catch {
            throw .accessDenied("cannot identify the caller \(call.sender): \(error)")
        }
        // A uid without a passwd entry (a container's) still owns its transfers; it only has
        // no groups beyond its own.
        return UserAccount.acting(for: uid)
    }

    private static func id(_ call: BusMethodCall) throws(BusMethodError) -> String {
        guard call.arguments.count == 1, let id = call.arguments[0].stringValue else {
            throw .invalidArgs("\(call.member) takes a transfer id (s)")
        }
        return id
    }

    /// What a scheduler error answers on the bus.
    static func busError(_ error: any Error) -> BusMethodError {
        if let error = error as? TransferStoreError { return busError(error) }
        guard let error = error as? TransferAddError else { return .failed("\(error)") }
        switch error {
        case .invalid(let message): return .invalidArgs(message)
        case .accessDenied(let message): return .accessDenied(message)
        case .store(let error): return busError(error)
        }
    }

    /// Another user's transfer reads as no transfer at all, so ids do not leak.
    static func busError(_ error: TransferStoreError) -> BusMethodError {
        switch error {
        case .notFound(let id), .notPermitted(let id, _):
            BusMethodError(name: TransfersBus.notFoundError, message: "no transfer \(TransferRequest.clip(id))")
        case .destinationInUse:
            BusMethodError(name: TransfersBus.destinationBusyError, message: error.description)
        case .alreadyFinished:
            BusMethodError(name: TransfersBus.alreadyFinishedError, message: error.description)
        case .invalid(let message):
            .invalidArgs(message)
        default:
            .failed(error.description)
        }
    }
}
