import JouleWire
import JouleHardware
import JouleTransferQueue

/// Finished transfer batches for the notifier (issue 35, off by default): org.joule.Transfers1's
/// signals, kept to the user's own transfers (the signals are broadcast and name no owner, so
/// each new id is looked up once with `Get`, NotFound for another user's), gathered by
/// `TransferBatcher` and reported when it is due. The only timer is the one for a batch that
/// is due; an idle queue costs no wakeups.
package actor TransferBatchFollower {
    private let bus: BusConnection
    private let notifier: SessionNotifier
    private let log: @Sendable (String) -> Void
    private let now: @Sendable () -> Double
    private var batcher: TransferBatcher
    /// Whether each id seen is the user's.
    private var owners: [String: Bool] = [:]
    private var timer: Task<Void, Never>?
    /// The last failure logged, so a daemon that is down is said once.
    private var problem: String?

    package init(
        bus: BusConnection, notifier: SessionNotifier, quiet: Double = 2,
        now: @escaping @Sendable () -> Double = TransferBatchFollower.monotonicSeconds, log: @escaping @Sendable (String) -> Void
    ) {
        self.bus = bus
        self.notifier = notifier
        self.now = now
        self.log = log
        batcher = TransferBatcher(quiet: quiet)
    }

    /// The match rules to subscribe to before `follow`: the signals, and the daemon's name
    /// gaining an owner (then what is live is read again).
    package static let rules = [
        TransferSignalDecoder.rule,
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',"
            + "arg0='\(TransfersBus.busName)'",
    ]

    /// Follows `signals` (subscribed with `rules`) until the stream ends or the task is cancelled.
    package func follow(_ signals: AsyncStream<BusSignalMessage>) async {
        log("session: following \(TransfersBus.interfaceName) for finished batches")
        await readLive()
        for await signal in signals {
            if signal.member == "NameOwnerChanged" {
                if signal.arguments.count == 3, signal.arguments[2].stringValue?.isEmpty == false { await readLive() }
                continue
            }
            guard let event = TransferSignalDecoder.decode(signal), await isMine(event.id) else { continue }
            batcher.observe(event, at: now())
            schedule()
        }
        timer?.cancel()
    }

    /// The user's live transfers from `List`, which the signals may not have told (added
    /// before the agent started, or while the daemon was away).
    private func readLive() async {
        do throws(BusError) {
            let reply = try await call("List", [])
            guard let text = reply.first?.stringValue, let transfers = try? TransferSnapshot.list(json: text) else {
                throw .unexpected(operation: "List", detail: "not a JSON array of transfers")
            }
            for transfer in transfers { remember(transfer.id, mine: true) }
            batcher.reset(live: transfers.filter(\.state.isLive).map(\.id), at: now())
            problem = nil
        } catch {
            // No daemon yet: its name gaining an owner brings this back.
            if error.remoteName != "org.freedesktop.DBus.Error.ServiceUnknown" {
                say("cannot list the transfers on \(TransfersBus.busName): \(error)")
            }
        }
        schedule()
    }

    /// Whether `id` is the user's: `Get` answers NotFound for another user's. Unknown (the
    /// daemon not answering) counts as not, unremembered.
    private func isMine(_ id: String) async -> Bool {
        if let known = owners[id] { return known }
        do throws(BusError) {
            _ = try await call("Get", [.string(id)])
            remember(id, mine: true)
            return true
        } catch {
            if error.remoteName == TransfersBus.notFoundError {
                remember(id, mine: false)
            } else {
                say("cannot look up transfer \(id): \(error)")
            }
            return false
        }
    }

    private func remember(_ id: String, mine: Bool) {
        // Ids are never reused; a long session forgets the oldest answers wholesale.
        if owners.count >= 4096 { owners.removeAll(keepingCapacity: true) }
        owners[id] = mine
    }

    /// A timer for the batch's deadline, replacing any earlier one; none when nothing is due.
    private func schedule() {
        timer?.cancel()
        timer = nil
        guard let deadline = batcher.deadline else { return }
        let delay = Duration.seconds(clamping: deadline - now())
        timer = Task { [weak self] in
            do { try await Task.sleep(for: delay) } catch { return }
            await self?.fire()
        }
    }

    private func fire() async {
        guard let event = batcher.fire(at: now()) else {
            schedule()
            return
        }
        timer = nil
        if case .transferBatchFinished(let completed, let failed) = event {
            log("session: transfers finished: \(completed) completed, \(failed) failed")
        }
        await notifier.handle(event)
    }

    private func call(_ member: String, _ arguments: [BusValue]) async throws(BusError) -> [BusValue] {
        try await bus.call(
            destination: TransfersBus.busName, path: TransfersBus.objectPath, interface: TransfersBus.interfaceName,
            member: member, arguments: arguments)
    }

    private func say(_ line: String) {
        guard line != problem else { return }
        problem = line
        log("session: \(line)")
    }

    /// Seconds on the monotonic clock since the first call.
    package static let monotonicSeconds: @Sendable () -> Double = {
        let start = ContinuousClock.now
        return {
            let elapsed = ContinuousClock.now - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
    }()
}
