import JouleHardware
import JouleEnergy

/// Decides when each queued transfer runs (issue 13): the conditions from Joule's own readings,
/// batches that start together, at most `maxConcurrent` attempts, retries and deadlines. It is
/// woken by changes (the engines, NetworkManager, netlink, a request) and by one timer set to
/// the next time-based event (a retry, a begin-after time, a deadline); it never polls.
///
/// Every state change is one transaction in `TransferStore` before anything is announced, so a
/// crash leaves each transfer as of its last announced state.
public actor TransferScheduler {
    /// What the scheduler tells the daemon, after the store holds it.
    public enum Notice: Sendable {
        /// A new state (or a new transfer).
        case changed(Transfer)
        /// Completed, failed or cancelled; the completion hook has been queued.
        case finished(Transfer)
    }

    /// The power, thermal and network half of the conditions; the rest is per transfer.
    public struct Readings: Sendable, Hashable {
        public var lineOnline: Bool
        /// nil without a battery.
        public var batteryPercentage: Double?
        public var lowPowerMode: Bool
        public var thermalState: ThermalState
        public var metered: Bool

        public init(lineOnline: Bool, batteryPercentage: Double?, lowPowerMode: Bool, thermalState: ThermalState, metered: Bool) {
            self.lineOnline = lineOnline
            self.batteryPercentage = batteryPercentage
            self.lowPowerMode = lowPowerMode
            self.thermalState = thermalState
            self.metered = metered
        }
    }

    /// Why the scheduler ended an attempt itself.
    private enum StopReason {
        case cancelled, conditionLost, deadline, shutdown
    }

    private let store: TransferStore
    private let transport: any TransferTransport
    private var settings: TransferSettings
    private var readings: Readings
    private let now: @Sendable () -> Double
    private let random: @Sendable () -> Double
    private let freeSpace: @Sendable (String) -> TransferConditions.FileSpace?
    /// Notices in the order the store took them (signals must not overtake one another).
    public nonisolated let notices: AsyncStream<Notice>
    private let noticeContinuation: AsyncStream<Notice>.Continuation
    private let log: @Sendable (String) -> Void
    private let hooks: TransferCompletionHooks

    private var attempts: [String: Task<Void, Never>] = [:]
    private var stopReasons: [String: StopReason] = [:]
    private var timer: Task<Void, Never>?
    private var timerDue: Double?
    private var stopping = false
    /// Each running attempt's durable bytes when last counted.
    private var counted: [String: Int64] = [:]

    /// Bytes the attempts made durable (fsynced into a `.part` file, or sent for an upload)
    /// since the scheduler started: `joule_transfer_bytes_total`. A restart from 0 (a new
    /// representation) counts again what it moves again.
    public private(set) var bytesTransferred: Int64 = 0

    public init(
        store: TransferStore, transport: any TransferTransport, settings: TransferSettings, readings: Readings,
        now: @escaping @Sendable () -> Double = { WallClock.seconds() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        freeSpace: @escaping @Sendable (String) -> TransferConditions.FileSpace? = { path in
            (try? FileSystem.freeSpace(path)).map(TransferConditions.FileSpace.init)
        },
        log: @escaping @Sendable (String) -> Void
    ) {
        self.store = store
        self.transport = transport
        self.settings = settings
        self.readings = readings
        self.now = now
        self.random = random
        self.freeSpace = freeSpace
        (notices, noticeContinuation) = AsyncStream.makeStream(of: Notice.self)
        self.log = log
        hooks = TransferCompletionHooks(log: log)
    }

    /// How often free space is looked at again while a transfer waits for it.
    static let storageRecheck = 60.0

    // MARK: Life

    /// After a crash, `running` transfers become `suspended` (their `.part` files are cut back
    /// to `durableBytes` by their next attempt); then the first evaluation.
    public func start() {
        do {
            let recovered = try store.recoverAfterCrash()
            if !recovered.isEmpty { log("transfers: \(recovered.count) interrupted by a crash resume from their durable bytes") }
        } catch {
            log("transfers: cannot recover the queue: \(error)")
        }
        evaluate()
    }

    /// Ends every attempt (keeping what is durable; they resume at the next start) and waits
    /// for the completion hooks.
    public func stop() async {
        stopping = true
        timer?.cancel()
        timer = nil
        let running = attempts
        for id in running.keys { stopReasons[id] = .shutdown }
        for task in running.values { task.cancel() }
        for task in running.values { await task.value }
        await transport.shutdown()
        await hooks.finish()
        noticeContinuation.finish()
    }

    public func setReadings(_ fresh: Readings) {
        guard fresh != readings else { return }
        readings = fresh
        evaluate()
    }

    /// SIGHUP: new settings and readings, then one look at every transfer, changed or not,
    /// for what announces nothing (free space).
    public func reload(_ fresh: TransferSettings, readings current: Readings) {
        settings = fresh
        readings = current
        evaluate()
    }

    // MARK: Requests

    /// Queues `request` for `owner` after checking it as that user would be checked: the
    /// destination's directory exists and the owner may write it, an upload's file exists and
    /// the owner may read it. Returns the transfer as it stands after the first evaluation.
    public func add(_ proposed: TransferRequest, owner: UserAccount) throws(TransferAddError) -> Transfer {
        let request: TransferRequest
        do {
            request = try proposed.validated()
        } catch {
            throw .invalid(error.message)
        }
        try Self.checkPaths(request, owner: owner)
        let created = now()
        let transfer = Transfer(
            ownerUID: owner.uid, url: request.url, method: request.effectiveMethod, headers: request.headers,
            destination: request.destination, uploadSource: request.upload,
            requirements: TransferRequirements(
                discretionary: request.discretionary, unmeteredOnly: request.unmeteredOnly, requireAC: request.requireAC),
            priority: request.priority, batch: request.batch, sha256: request.sha256, onComplete: request.onComplete,
            sessionIdentifier: request.session, createdAt: created, beginAfter: request.beginAfter.map { created + $0 },
            deadline: created + (request.timeout ?? settings.defaultTimeout))
        do {
            try store.add(transfer)
        } catch {
            throw .store(error)
        }
        log("transfers: \(transfer.id) added by uid \(owner.uid): \(transfer.method.rawValue) \(transfer.url)")
        noticeContinuation.yield(.changed(transfer))
        evaluate()
        return (try? store.get(transfer.id)) ?? transfer
    }

    /// Cancels a live transfer of `uid`'s (any for root): an attempt in flight is stopped and
    /// the `.part` file removed.
    public func cancel(_ id: String, uid: UInt32) throws(TransferStoreError) -> Transfer {
        let cancelled = try store.cancel(id, visibleTo: uid)
        if let attempt = attempts[id] {
            stopReasons[id] = .cancelled
            attempt.cancel()
        } else {
            removePartFile(cancelled)
        }
        finished(cancelled)
        evaluate()
        return cancelled
    }

    public func get(_ id: String, uid: UInt32) throws(TransferStoreError) -> Transfer {
        try store.get(id, visibleTo: uid)
    }

    public func list(uid: UInt32, session: String? = nil) throws(TransferStoreError) -> [Transfer] {
        try store.list(visibleTo: uid, session: session)
    }

    // MARK: Evaluation

    /// One pass over the live transfers: deadlines, conditions, batches, slots; then the timer
    /// for the next time-based event.
    private func evaluate() {
        guard !stopping else { return }
        let now = now()
        let live: [Transfer]
        do {
            live = try store.list(liveOnly: true)
        } catch {
            log("transfers: cannot read the queue: \(error)")
            return
        }
        var candidates: [(transfer: Transfer, unmet: [TransferCondition])] = []
        var spaces: [String: TransferConditions.FileSpace?] = [:]
        var nextEvent: Double?
        func wake(at time: Double) { if time > now { nextEvent = min(nextEvent ?? time, time) } }

        for transfer in live {
            if attempts[transfer.id] != nil {
                if now >= transfer.deadline {
                    stop(transfer.id, .deadline)
                    continue
                }
                // Conditions lost mid-transfer suspend it; a begin-after time or a batch no
                // longer matter once it runs.
                let lost = conditions(transfer, now: now, spaces: &spaces).filter { $0 != .beginAfter }
                if !lost.isEmpty {
                    log("transfers: \(transfer.id) suspended: lost \(lost.map(\.rawValue).joined(separator: ", "))")
                    stop(transfer.id, .conditionLost)
                    continue
                }
                wake(at: transfer.deadline)
                continue
            }
            if now >= transfer.deadline {
                let reason = "deadline passed" + (transfer.lastError.map { "; last: \($0)" } ?? "")
                commit(transfer.id, final: true) { $0.state = .failed(reason: reason) }
                continue
            }
            wake(at: transfer.deadline)
            if let next = transfer.state.nextAttempt, next > now {
                wake(at: next)
                continue
            }
            let unmet = conditions(transfer, now: now, spaces: &spaces)
            if unmet.contains(.beginAfter), let begin = transfer.beginAfter { wake(at: begin) }
            // Free space announces nothing when it returns: a slow look, only while some
            // transfer waits for it (as Android re-checks for its storage-OK broadcast).
            if unmet.contains(.storage) { wake(at: now + Self.storageRecheck) }
            candidates.append((transfer, unmet))
        }

        // A batch starts together: while any member that has not started yet is held back,
        // the ready ones wait for it too, so the radio wakes once.
        var heldBatches = Set<String>()
        for candidate in candidates where !candidate.unmet.isEmpty && candidate.transfer.state.name == "waiting" {
            if let key = Self.batchKey(candidate.transfer) { heldBatches.insert(key) }
        }
        var ready: [Transfer] = []
        for index in candidates.indices {
            if let key = Self.batchKey(candidates[index].transfer), heldBatches.contains(key),
                candidates[index].transfer.state.name == "waiting"
            {
                candidates[index].unmet.append(.batch)
            }
            if candidates[index].unmet.isEmpty { ready.append(candidates[index].transfer) }
        }
        ready.sort { ($0.priority.rank, $0.createdAt) < ($1.priority.rank, $1.createdAt) }
        let slots = max(0, settings.maxConcurrent - attempts.count)
        let starting = Set(ready.prefix(slots).map(\.id))
        for transfer in ready.prefix(slots) { begin(transfer) }

        for (transfer, unmet) in candidates where !starting.contains(transfer.id) {
            let waiting = TransferState.waiting(unmet: unmet)
            guard transfer.state != waiting else { continue }
            // A due retry or a suspension whose conditions are gone waits like a new transfer.
            commit(transfer.id, final: false, announce: transfer.state.name != "waiting") { $0.state = waiting }
        }
        schedule(nextEvent)
    }

    /// The conditions `transfer` has that the machine does not meet now (never `.batch`).
    /// - Parameter spaces: free space per directory, read once per pass however many
    ///   transfers share a directory.
    private func conditions(
        _ transfer: Transfer, now: Double, spaces: inout [String: TransferConditions.FileSpace?]
    ) -> [TransferCondition] {
        var space: TransferConditions.FileSpace?
        if let destination = transfer.destination {
            let directory = Self.directory(of: destination)
            if let known = spaces[directory] {
                space = known
            } else {
                space = freeSpace(directory)
                spaces[directory] = .some(space)
            }
        }
        let requirements = TransferConditions.Requirements(
            discretionary: transfer.requirements.discretionary, unmeteredOnly: transfer.requirements.unmeteredOnly,
            requireAC: transfer.requirements.requireAC, beginAfter: transfer.beginAfter,
            remainingBytes: transfer.destination == nil ? nil : transfer.remainingBytes.map { UInt64($0) })
        let environment = TransferConditions.Environment(
            lineOnline: readings.lineOnline, batteryPercentage: readings.batteryPercentage,
            lowPowerMode: readings.lowPowerMode, thermalState: readings.thermalState, metered: readings.metered,
            space: space, now: now)
        return TransferConditions.unmet(requirements, in: environment)
    }

    /// Batches are per owner: one user's batch name never holds back another's transfers.
    private static func batchKey(_ transfer: Transfer) -> String? {
        transfer.batch.map { "\(transfer.ownerUID)/\($0)" }
    }

    private func schedule(_ due: Double?) {
        guard due != timerDue else { return }
        timer?.cancel()
        timerDue = due
        guard let due else {
            timer = nil
            return
        }
        // Wall-clock due times, slept on the monotonic clock; a clock step is corrected at the
        // next evaluation, which every event triggers.
        let span = Duration.seconds(clamping: max(0, due - now()) + 0.001)
        timer = Task { [weak self] in
            guard (try? await CancellableSleep.sleep(for: span)) != nil else { return }
            await self?.timerFired()
        }
    }

    private func timerFired() {
        timerDue = nil
        timer = nil
        evaluate()
    }

    // MARK: Attempts

    private func begin(_ transfer: Transfer) {
        guard let running = commit(transfer.id, final: false, { $0.state = .running }) else { return }
        let tuning = settings.tuning
        let transport = self.transport
        let id = transfer.id
        counted[id] = running.durableBytes
        // Strong: `stop()` waits for every attempt, so none outlives the scheduler.
        attempts[id] = Task {
            let result = await transport.attempt(running, tuning: tuning) { progress in
                await self.recordDurable(id, progress)
            }
            self.attemptEnded(id, result)
        }
    }

    private func recordDurable(_ id: String, _ progress: DurableProgress) {
        count(id, durable: progress.durableBytes)
        // A cancel may have finished the transfer meanwhile: its row no longer changes.
        _ = try? store.update(id) { transfer in
            transfer.durableBytes = progress.durableBytes
            transfer.validators = progress.validators
        }
    }

    /// Adds what an attempt made durable since it was last counted; a drop (a restart at 0)
    /// only moves the mark.
    private func count(_ id: String, durable: Int64) {
        guard let last = counted[id] else { return }
        if durable > last { bytesTransferred += durable - last }
        counted[id] = durable
    }

    /// How many transfers stand in each state; nil when the store cannot be read (logged).
    public func countsByState() -> [String: Int]? {
        do {
            return try store.countsByState()
        } catch {
            log("transfers: cannot count the queue: \(error)")
            return nil
        }
    }

    /// Asks an attempt to end; `attemptEnded` decides what follows from `reason`.
    private func stop(_ id: String, _ reason: StopReason) {
        guard let attempt = attempts[id], stopReasons[id] == nil else { return }
        stopReasons[id] = reason
        attempt.cancel()
    }

    private func attemptEnded(_ id: String, _ result: TransferAttemptResult) {
        attempts[id] = nil
        count(id, durable: result.durableBytes)
        counted[id] = nil
        let reason = stopReasons.removeValue(forKey: id)
        func keepBytes(_ transfer: inout Transfer) {
            transfer.durableBytes = result.durableBytes
            transfer.validators = result.validators
        }
        switch reason {
        case .cancelled:
            if let transfer = try? store.get(id) { removePartFile(transfer) }
        case .shutdown, .conditionLost:
            // Not the transfer's fault: no attempt is counted.
            commit(id, final: false, announce: reason == .conditionLost) { transfer in
                keepBytes(&transfer)
                transfer.state = .suspended(until: nil)
            }
        case .deadline:
            commit(id, final: true) { transfer in
                keepBytes(&transfer)
                transfer.state = .failed(reason: "deadline passed while running")
            }
        case nil:
            guard let transfer = try? store.get(id), transfer.state.isLive else { break }
            let decision = RetryPolicy(tuning: settings.tuning).decide(
                after: result, attemptsWithoutProgress: transfer.attemptsWithoutProgress, now: now(),
                deadline: transfer.deadline, random: random())
            let note: String? = switch result.outcome {
            case .retry(let reason, _), .suspended(let reason), .failed(let reason): reason
            case .completed: nil
            }
            switch decision {
            case .completed:
                commit(id, final: true) { transfer in
                    keepBytes(&transfer)
                    transfer.lastError = nil
                    transfer.state = .completed
                }
            case .retry(let at, let count):
                commit(id, final: false) { transfer in
                    keepBytes(&transfer)
                    transfer.attemptsWithoutProgress = count
                    transfer.lastError = note
                    transfer.state = .retrying(next: at)
                }
            case .suspend(let at, let count):
                commit(id, final: false) { transfer in
                    keepBytes(&transfer)
                    transfer.attemptsWithoutProgress = count
                    transfer.lastError = note
                    transfer.state = .suspended(until: at)
                }
            case .failed(let reason):
                commit(id, final: true) { transfer in
                    keepBytes(&transfer)
                    transfer.lastError = note
                    transfer.state = .failed(reason: reason)
                }
            }
        }
        evaluate()
    }

    /// Writes one change in one transaction, then announces it (and, when final, runs the
    /// completion hook and removes a failed download's `.part`). Returns the stored transfer;
    /// nil when it could not change (finished meanwhile, or the store failed, which is logged).
    @discardableResult
    private func commit(_ id: String, final: Bool, announce: Bool = true, _ change: (inout Transfer) -> Void) -> Transfer? {
        let updated: Transfer
        do {
            updated = try store.update(id) { change(&$0) }
        } catch TransferStoreError.alreadyFinished {
            return nil
        } catch {
            log("transfers: \(id): cannot record the change: \(error)")
            return nil
        }
        if final {
            if case .failed(let reason) = updated.state {
                removePartFile(updated)
                log("transfers: \(id) failed: \(reason)")
            } else {
                log("transfers: \(id) \(updated.state.name)")
            }
            finished(updated)
        } else if announce {
            noticeContinuation.yield(.changed(updated))
        }
        return updated
    }

    private func finished(_ transfer: Transfer) {
        hooks.run(for: transfer)
        noticeContinuation.yield(.finished(transfer))
    }

    /// Failed and cancelled downloads leave nothing behind (BITS removes its temporary files).
    private func removePartFile(_ transfer: Transfer) {
        guard let destination = transfer.destination else { return }
        // As the owner, under the directory's descriptor: a directory swapped for a symlink
        // cannot make the root daemon remove someone else's file.
        do {
            try PartFile.remove(destination: destination, owner: UserAccount.acting(for: transfer.ownerUID))
        } catch {
            log("transfers: \(transfer.id): cannot remove \(destination).part: \(error)")
        }
    }

    // MARK: Checks

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The file-system half of a request's validity, as the owner.
    static func checkPaths(_ request: TransferRequest, owner: UserAccount) throws(TransferAddError) {
        if let destination = request.destination {
            let directory = directory(of: destination)
            switch FileSystem.kind(of: directory) {
            case nil: throw .invalid("destination: the directory \(directory) does not exist")
            case .directory?: break
            default: throw .invalid("destination: \(directory) is not a directory")
            }
            guard owner.may(.write, directory), owner.may(.search, directory) else {
                throw .accessDenied("destination: uid \(owner.uid) may not write in \(directory)")
            }
            if FileSystem.kind(of: destination) == .directory {
                throw .invalid("destination: \(destination) is a directory; give the file's path")
            }
            // Symlinks are never followed when the file is written (see PartFile): say so now.
            if FileSystem.entryKind(of: directory) == .symlink {
                throw .invalid("destination: the directory \(directory) is a symbolic link; name the directory it points to")
            }
            for path in [destination, destination + ".part"] where FileSystem.entryKind(of: path) == .symlink {
                throw .invalid("destination: \(path) is a symbolic link; it is not followed or replaced")
            }
        }
        if let upload = request.upload {
            if FileSystem.entryKind(of: upload) == .symlink {
                throw .invalid("upload: \(upload) is a symbolic link; name the file it points to")
            }
            switch FileSystem.kind(of: upload) {
            case nil: throw .invalid("upload: \(upload) does not exist")
            case .regular?: break
            default: throw .invalid("upload: \(upload) is not a regular file")
            }
            guard owner.may(.read, upload) else { throw .accessDenied("upload: uid \(owner.uid) may not read \(upload)") }
        }
    }
}
