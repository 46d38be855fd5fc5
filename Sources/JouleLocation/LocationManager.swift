import JouleHardware

/// Core Location's `CLLocationManager` for Linux programs, on Joule's receiver model: the same
/// engines as `joule location`, run in the caller's process.
///
/// ```swift
/// let manager = LocationManager(source: .gpsd)   // or .replay(path:), .fixed(…), any LocationReceiver
/// let here = try await manager.requestLocation(OnceRequest(accuracyM: 1000))
/// for await event in try await manager.monitor(regions: [CircularRegion(name: "home", latitude: 52.52, longitude: 13.405, radiusM: 150)]) {
///     if case .regionEnter(let name, _) = event { print("welcome to \(name)") }
/// }
/// ```
/// Each call opens its own receiver (`open`), so sessions never share one. A sequence runs its
/// engine on a task of its own; when the consumer stops iterating, or its task is cancelled,
/// that task is cancelled, the engine stops reading, and the receiver is turned off. The
/// power and thermal policy is a value given here: an app passes what `JouleProcessInfo`
/// says (`LocationPolicy(lowPowerMode: info.isLowPowerModeEnabled, thermalState: info.thermalState)`).
public struct LocationManager<Receiver: LocationReceiver>: Sendable {
    private let open: @Sendable () async throws(LocationError) -> Receiver
    /// Relaxes `startUpdating`, `visits` and `significantChanges` (Low Power Mode, heat).
    public var policy: LocationPolicy

    /// A manager on the receivers `open` makes, one per request.
    public init(policy: LocationPolicy = .normal, receiver open: @escaping @Sendable () async throws(LocationError) -> Receiver) {
        self.open = open
        self.policy = policy
    }

    /// `requestLocation`: the first fix as accurate as asked, with the receiver off as soon as
    /// it comes; at the timeout the most accurate seen (`accuracyMet` false). Throws `.noFix`
    /// when there was none, and the source's error when it cannot be opened.
    public func requestLocation(_ request: OnceRequest = OnceRequest()) async throws(LocationError) -> (fix: LocationFix, accuracyMet: Bool) {
        var receiver = CancellableReceiver(base: try await open())
        do throws(LocationError) {
            let result = try await LocationOnce.run(request, receiver: &receiver, emit: { _ in })
            await receiver.close()
            return result
        } catch {
            await receiver.close()
            throw receiver.failure ?? error
        }
    }

    /// Standard updates (`joule location watch`): every event, the receiver's turns and the
    /// summary included, relaxed by the policy.
    public func startUpdating(_ options: WatchRequest = WatchRequest()) async throws(LocationError) -> AsyncStream<LocationEvent> {
        let policy = self.policy
        return try await events { receiver, emit in await LocationWatch.run(options, policy: policy, receiver: &receiver, emit: emit) }
    }

    /// Region monitoring (`joule location monitor`), with adaptive sampling; the policy does not
    /// apply.
    public func monitor(regions: [CircularRegion], sampling: SamplingRequest = SamplingRequest()) async throws(LocationError) -> AsyncStream<LocationEvent> {
        let request = MonitorRequest(regions: regions, sampling: sampling)
        return try await events { receiver, emit in await LocationMonitor.run(request, receiver: &receiver, emit: emit) }
    }

    /// Visit monitoring (`joule location visits`), relaxed by the policy.
    public func visits(_ request: VisitsRequest = VisitsRequest()) async throws(LocationError) -> AsyncStream<LocationEvent> {
        let policy = self.policy
        return try await events { receiver, emit in await LocationVisits.run(request, policy: policy, receiver: &receiver, emit: emit) }
    }

    /// The significant-change service (`joule location significant`), relaxed by the policy.
    public func significantChanges(_ request: SignificantRequest = SignificantRequest()) async throws(LocationError) -> AsyncStream<LocationEvent> {
        let policy = self.policy
        return try await events { receiver, emit in await LocationSignificant.run(request, policy: policy, receiver: &receiver, emit: emit) }
    }

    /// Opens a receiver here (so a bad source throws at once) and runs `engine` on it on a task
    /// that ends with the sequence: the consumer leaving cancels it.
    private func events(
        _ engine: @escaping @Sendable (inout CancellableReceiver<Receiver>, (LocationEvent) -> Void) async -> LocationSummary?
    ) async throws(LocationError) -> AsyncStream<LocationEvent> {
        let base = try await open()
        let (stream, continuation) = AsyncStream.makeStream(of: LocationEvent.self)
        let task = Task {
            var receiver = CancellableReceiver(base: base)
            _ = await engine(&receiver) { continuation.yield($0) }
            await receiver.close()
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

extension LocationManager where Receiver == LocationSource {
    /// A manager on `source` (`LocationSource.open`, live gpsd at `gpsd` and GeoClue included),
    /// with a TTFF for replays and fixed positions; a fixed source's clock starts at the wall
    /// clock's now when a request opens it.
    public init(
        source: LocationSourceSpec, ttffMicros: Int64 = 0, gpsd: GPSDAddress = .standard, policy: LocationPolicy = .normal
    ) {
        self.init(policy: policy) { () async throws(LocationError) in
            try await LocationSource.open(source, ttffMicros: ttffMicros, now: WallClock.micros(), gpsd: gpsd)
        }
    }
}

/// A receiver that ends when its task is cancelled: `next` reads `.end` and a sleep returns
/// at once, so every engine leaves its loop and turns the receiver off. A live receiver's own
/// waits end on cancellation too; this covers replays, which never wait.
struct CancellableReceiver<Base: LocationReceiver>: LocationReceiver {
    var base: Base

    var name: String { base.name }
    var startTime: Int64? { base.startTime }
    var endTime: Int64? { base.endTime }

    mutating func turnOn(at time: Int64) async { await base.turnOn(at: time) }
    mutating func requestAccuracy(_ metres: Double) async { await base.requestAccuracy(metres) }
    var failure: LocationError? { base.failure }
    func close() async { await base.close() }
    mutating func turnOff(at time: Int64) async { await base.turnOff(at: time) }

    mutating func sleep(until time: Int64) async {
        guard !Task.isCancelled else { return }
        await base.sleep(until: time)
    }

    mutating func next(before deadline: Int64?) async -> ReceiverRead {
        guard !Task.isCancelled else { return .end }
        let read = await base.next(before: deadline)
        return Task.isCancelled ? .end : read
    }
}
