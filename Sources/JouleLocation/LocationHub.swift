import JouleHardware

/// What a `LocationHub` handle produced, for its owner (a bus name).
public enum LocationHubDelivery: Sendable, Equatable {
    case location(owner: String, handle: UInt32, fix: LocationFix)
    case deferred(owner: String, handle: UInt32, fixes: [LocationFix], reason: DeferralReason)
    case regionEntered(owner: String, handle: UInt32, region: String, fix: LocationFix)
    case regionExited(owner: String, handle: UInt32, region: String, fix: LocationFix)
    /// A visit began (`departureMicros` nil) or ended.
    case visit(owner: String, handle: UInt32, visit: Visit)
    case significantChange(owner: String, handle: UInt32, fix: LocationFix)
    /// A live source failed and is being retried (for the log).
    case trouble(message: String)
    /// The receiver went on or off, or its requested accuracy changed (the properties).
    case receiver(on: Bool, accuracyM: Double?)
}


/// One receiver session for every client of the daemon's `org.joule.Location1`: the receiver
/// is on only while some handle needs a fix, at the finest accuracy any of them needs, and for
/// regions only as often as the nearest boundary needs (adaptive sampling, as `monitor`).
///
/// Handles are one-shot requests (`requestLocation`), standard updates (`startUpdates`, with
/// the distance filter and deferral of `watch`), regions (`addRegion`), visits and significant
/// changes, the last three each sampled on its own schedule (a sample's settle time is
/// `monitor`'s alone: here a sample waits for a fix as accurate as its rule asks). Each belongs to an
/// owner (a bus name); `stop(owner:)` ends all of an owner's when it leaves the bus. What the
/// handles produce goes to `deliver`, addressed to the owner.
///
/// The loop runs on the wall clock. While the receiver is off it sleeps until a region's next
/// sample or a command, whichever comes first; while on, it waits for a fix at most a second at
/// a time, so a command that turns the receiver off or changes its accuracy takes effect within
/// a second even on a source whose fixes are rare (GeoClue's) — the receiver being on costs far
/// more than that wake.
public actor LocationHub<Source: LocationReceiver & Sendable> {
    private struct Once {
        var accuracyM: Double
        var deadline: Int64
        var best: LocationFix?
        var continuation: CheckedContinuation<(fix: LocationFix, accuracyMet: Bool), any Error>
    }

    /// A rule on adaptive sampling (a region, visits, significant changes), the accuracy its
    /// samples ask for, and when it next needs one (nil: now).
    private struct Sampled {
        var rule: any SampledRule
        var accuracyM: Double
        var wakeAt: Int64?
    }

    /// Standard updates: the filter runs the policy's version of `asked`. With
    /// `pauseWhenStationary`, `watch`'s auto-pause: the first fix that long after the last move
    /// of more than max(25 m, its accuracy) pauses the handle (it needs no fix), which then
    /// takes one probe fix every `probeMicros`; a probe more than 100 m from the pausing fix
    /// resumes it, and is delivered.
    private struct Updates {
        var filter: DeliveryFilter
        var asked: WatchRequest
        var anchor: LocationFix?
        var pausedAt: LocationFix?
        var probeAt: Int64?
    }

    private enum Kind {
        case once(Once)
        case updates(Updates)
        case sampled(Sampled)
    }

    private struct Handle {
        var owner: String
        var kind: Kind
    }

    private let open: @Sendable () async throws(LocationError) -> Source
    private let deliver: @Sendable (LocationHubDelivery) -> Void
    private let now: @Sendable () -> Int64
    private let sampling: SamplingRequest
    private var source: Source?
    private var handles: [UInt32: Handle] = [:]
    private var nextHandle: UInt32 = 1
    public private(set) var receiverOn = false
    public private(set) var policy = LocationPolicy.normal
    public private(set) var requestedAccuracyM: Double?
    private let wakeup = DeadlineMailbox<Void>()
    private var loop: Task<Void, Never>?

    /// `open` opens the live source (again after it ended); `sampling` is the regions'
    /// accuracy and max speed; `now` is the wall clock in µs (tests inject theirs).
    public init(
        sampling: SamplingRequest = SamplingRequest(), now: @escaping @Sendable () -> Int64 = { WallClock.micros() },
        open: @escaping @Sendable () async throws(LocationError) -> Source,
        deliver: @escaping @Sendable (LocationHubDelivery) -> Void
    ) {
        self.open = open
        self.deliver = deliver
        self.now = now
        self.sampling = sampling
    }

    /// Starts the loop (once).
    public func start() {
        guard loop == nil else { return }
        loop = Task { await self.run() }
    }

    /// Ends the loop, failing waiting requests, with the receiver off.
    public func shutdown() async {
        loop?.cancel()
        wakeup.push(())
        await loop?.value
        loop = nil
        for (id, handle) in handles {
            if case .once(let once) = handle.kind { once.continuation.resume(throwing: LocationError.noFix(source: "the daemon (stopping)")) }
            handles[id] = nil
        }
        await turnOff()
        await source?.close()
        source = nil
    }

    /// The number of handles `owner` holds (all owners: nil).
    public func handleCount(owner: String? = nil) -> Int {
        handles.values.filter { owner == nil || $0.owner == owner }.count
    }

    // MARK: Commands

    /// A one-shot fix for `owner`: the first as accurate as asked, or at `timeoutMicros` the
    /// most accurate seen (`accuracyMet` false), or `.noFix` with none.
    public func requestLocation(owner: String, accuracyM: Double, timeoutMicros: Int64) async throws -> (fix: LocationFix, accuracyMet: Bool) {
        let id = allocate()
        return try await withCheckedThrowingContinuation { continuation in
            handles[id] = Handle(
                owner: owner, kind: .once(Once(accuracyM: accuracyM, deadline: now() + timeoutMicros, continuation: continuation)))
            wakeup.push(())
        }
    }

    /// Standard updates for `owner`: `request`'s accuracy, distance filter and deferral (its
    /// pause and give-up are `watch`'s alone).
    public func startUpdates(owner: String, _ request: WatchRequest) -> UInt32 {
        let id = allocate()
        handles[id] = Handle(owner: owner, kind: .updates(Updates(filter: DeliveryFilter(request: policy.applied(to: request)), asked: request)))
        wakeup.push(())
        return id
    }

    /// Low Power Mode and the thermal state (seed 002): while the policy relaxes, updates ask for
    /// at least 1 km and defer twice as long, as `joule location watch` does; one-shot requests
    /// and regions keep theirs. Applies to running handles at once.
    public func setPolicy(_ new: LocationPolicy) {
        guard new != policy else { return }
        policy = new
        for (id, handle) in handles {
            guard case .updates(var updates) = handle.kind else { continue }
            updates.filter.request = new.applied(to: updates.asked)
            handles[id]?.kind = .updates(updates)
        }
        wakeup.push(())
    }

    /// Region monitoring for `owner`, sampled with the hub's `sampling`.
    public func addRegion(owner: String, _ region: CircularRegion) -> UInt32 {
        add(owner: owner, Sampled(rule: RegionRule(regions: [region]), accuracyM: sampling.accuracyM))
    }

    /// Visits (`joule location visits`) for `owner`.
    public func startVisits(owner: String, _ request: VisitsRequest) -> UInt32 {
        add(owner: owner, Sampled(rule: VisitRule(request: request), accuracyM: request.sampling.accuracyM))
    }

    /// Significant changes (`joule location significant`) for `owner`.
    public func startSignificantChanges(owner: String, _ request: SignificantRequest = SignificantRequest()) -> UInt32 {
        add(owner: owner, Sampled(rule: SignificantRule(request: request), accuracyM: request.sampling.accuracyM))
    }

    private func add(owner: String, _ sampled: Sampled) -> UInt32 {
        let id = allocate()
        handles[id] = Handle(owner: owner, kind: .sampled(sampled))
        wakeup.push(())
        return id
    }

    /// Ends `handle` if `owner` holds it; false otherwise. Deferred fixes held for it are
    /// delivered first (`stop`).
    @discardableResult
    public func stop(owner: String, handle id: UInt32) -> Bool {
        guard let handle = handles[id], handle.owner == owner else { return false }
        end(id, handle)
        wakeup.push(())
        return true
    }

    /// Ends every handle of `owner` (it left the bus).
    public func stop(owner: String) {
        for (id, handle) in handles where handle.owner == owner { end(id, handle) }
        wakeup.push(())
    }

    private func end(_ id: UInt32, _ handle: Handle) {
        handles[id] = nil
        switch handle.kind {
        case .once(let once): once.continuation.resume(throwing: LocationError.noFix(source: "the request (stopped)"))
        case .updates(var updates): updates.filter.finish { emitUpdate($0, owner: handle.owner, id: id) }
        case .sampled: break
        }
    }

    private func allocate() -> UInt32 {
        defer { nextHandle = nextHandle == .max ? 1 : nextHandle + 1 }
        return nextHandle
    }

    // MARK: The loop

    /// What the handles need now: the receiver on (at what accuracy, until when at most), or
    /// off until when.
    private func plan(at time: Int64) -> (on: Bool, accuracyM: Double?, deadline: Int64?) {
        var accuracy: Double?
        var deadline: Int64?
        func need(_ metres: Double) { accuracy = min(accuracy ?? metres, metres) }
        func until(_ instant: Int64) { deadline = min(deadline ?? instant, instant) }
        for handle in handles.values {
            switch handle.kind {
            case .once(let once):
                need(once.accuracyM)
                until(once.deadline)
            case .updates(let updates):
                // Paused: only the next probe needs a fix.
                if updates.pausedAt != nil, let probe = updates.probeAt, probe > time { until(probe) } else { need(updates.filter.request.accuracyM) }
            case .sampled(let sampled):
                // A rule that does not sample yet (a visit not arrived at) keeps the receiver on;
                // one that does needs a sample when its time comes.
                if let wake = sampled.wakeAt, wake > time, sampled.rule.samples { until(wake) } else { need(sampled.accuracyM) }
            }
        }
        return (accuracy != nil, accuracy, deadline)
    }

    private func run() async {
        while !Task.isCancelled {
            let time = now()
            expireRequests(at: time)
            let plan = plan(at: time)
            guard plan.on, let accuracy = plan.accuracyM else {
                await turnOff()
                let wait = plan.deadline.map { ContinuousClock.now + .microseconds(max(0, $0 - time)) }
                _ = await wakeup.next(before: wait)
                continue
            }
            guard await turnOn(accuracyM: accuracy, at: time) else {
                // The source would not open: said once; try again in 30 s or at a command.
                _ = await wakeup.next(before: ContinuousClock.now + .seconds(30))
                continue
            }
            let bound = time + 1_000_000
            guard var receiver = source else { continue }
            let read = await receiver.next(before: min(plan.deadline ?? bound, bound))
            source = receiver
            switch read {
            case .fix(let fix): consider(fix)
            case .deadline: continue
            case .trouble(let message, _): deliver(.trouble(message: message))
            case .end:
                // The source is done (a fixed position gives one fix): open it again when next needed.
                await source?.close()
                source = nil
                setReceiver(on: false, accuracy: nil)
            }
        }
    }

    private var openFailure: String?

    /// Opens the source if need be and turns the receiver on at `accuracyM`; false when the
    /// source cannot be opened.
    private func turnOn(accuracyM: Double, at time: Int64) async -> Bool {
        if source == nil {
            do throws(LocationError) {
                source = try await open()
                openFailure = nil
            } catch {
                if openFailure != error.description { deliver(.trouble(message: error.description)) }
                openFailure = error.description
                return false
            }
        }
        guard var receiver = source else { return false }
        if requestedAccuracyM != accuracyM { await receiver.requestAccuracy(accuracyM) }
        if !receiverOn { await receiver.turnOn(at: time) }
        source = receiver
        setReceiver(on: true, accuracy: accuracyM)
        return true
    }

    private func turnOff() async {
        guard receiverOn, var receiver = source else { return setReceiver(on: false, accuracy: nil) }
        await receiver.turnOff(at: now())
        source = receiver
        setReceiver(on: false, accuracy: nil)
    }

    private func setReceiver(on: Bool, accuracy: Double?) {
        guard on != receiverOn || accuracy != requestedAccuracyM else { return }
        receiverOn = on
        requestedAccuracyM = accuracy
        deliver(.receiver(on: on, accuracyM: accuracy))
    }

    /// One-shot requests past their deadline get the best fix seen, or `.noFix`.
    private func expireRequests(at time: Int64) {
        for (id, handle) in handles {
            guard case .once(let once) = handle.kind, time >= once.deadline else { continue }
            handles[id] = nil
            if let best = once.best {
                once.continuation.resume(returning: (best, false))
            } else {
                once.continuation.resume(throwing: LocationError.noFix(source: source?.name ?? "the location source"))
            }
        }
    }

    /// A fix, to every handle.
    private func consider(_ fix: LocationFix) {
        for (id, handle) in handles {
            switch handle.kind {
            case .once(var once):
                if fix.meetsAccuracy(once.accuracyM) {
                    handles[id] = nil
                    once.continuation.resume(returning: (fix, true))
                } else if LocationOnce.isMoreAccurate(fix, than: once.best) {
                    once.best = fix
                    handles[id]?.kind = .once(once)
                }
            case .updates(var updates):
                consider(fix, updates: &updates, owner: handle.owner, id: id)
                handles[id]?.kind = .updates(updates)
            case .sampled(var sampled):
                sampled.rule.consider(fix) { emitSampled($0, owner: handle.owner, id: id) }
                // A sample ends at a fix as accurate as the rule asks; the receiver may then stay
                // off, for this rule, until the nearest boundary could be reached (or the rule's
                // quiet time is over).
                if sampled.rule.samples, fix.meetsAccuracy(sampled.accuracyM) {
                    let request = SamplingRequest(accuracyM: sampled.accuracyM, maxSpeedMps: sampling.maxSpeedMps)
                    let off = request.offMicros(after: fix, boundaryM: sampled.rule.boundaryM(from: fix), offAt: fix.timeMicros)
                    sampled.wakeAt = max(fix.timeMicros + off, sampled.rule.quietUntil ?? .min)
                } else {
                    sampled.wakeAt = nil
                }
                handles[id]?.kind = .sampled(sampled)
            }
        }
    }

    private func consider(_ fix: LocationFix, updates: inout Updates, owner: String, id: UInt32) {
        let request = updates.filter.request
        if let paused = updates.pausedAt {
            // A probe: not delivered unless it shows the device moved.
            guard Geodesy.distanceM(paused, fix) > 100 else {
                updates.probeAt = fix.timeMicros + request.probeMicros
                return
            }
            updates.pausedAt = nil
            updates.probeAt = nil
            updates.anchor = fix
        }
        updates.filter.consider(fix) { emitUpdate($0, owner: owner, id: id) }
        guard let stillness = request.pauseWhenStationaryMicros else { return }
        guard let anchor = updates.anchor else {
            updates.anchor = fix
            return
        }
        if let accuracy = fix.horizontalAccuracyM, Geodesy.distanceM(anchor, fix) > max(25, accuracy) {
            updates.anchor = fix
        } else if fix.timeMicros - anchor.timeMicros >= stillness {
            updates.pausedAt = fix
            updates.probeAt = fix.timeMicros + request.probeMicros
        }
    }

    private func emitSampled(_ event: LocationEvent, owner: String, id: UInt32) {
        switch event {
        case .regionEnter(let name, let at): deliver(.regionEntered(owner: owner, handle: id, region: name, fix: at))
        case .regionExit(let name, let at): deliver(.regionExited(owner: owner, handle: id, region: name, fix: at))
        // The first decision is reported as a crossing into that state, as Core Location's
        // didDetermineState.
        case .regionState(let name, let inside, let at):
            deliver(inside ? .regionEntered(owner: owner, handle: id, region: name, fix: at) : .regionExited(owner: owner, handle: id, region: name, fix: at))
        case .visitArrival(let visit, _), .visitDeparture(let visit, _): deliver(.visit(owner: owner, handle: id, visit: visit))
        case .significantChange(let fix): deliver(.significantChange(owner: owner, handle: id, fix: fix))
        default: break
        }
    }

    private func emitUpdate(_ event: LocationEvent, owner: String, id: UInt32) {
        switch event {
        case .location(let fix, _): deliver(.location(owner: owner, handle: id, fix: fix))
        case .deferred(let fixes, let reason): deliver(.deferred(owner: owner, handle: id, fixes: fixes, reason: reason))
        default: break
        }
    }
}
