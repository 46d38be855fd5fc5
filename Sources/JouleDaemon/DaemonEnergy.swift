import JouleHardware
import JouleEnergy

/// The daemon's energy meter: the host's power, every RAPL zone's wrap-corrected joules and the
/// energy attributed to each systemd unit, measured by `ProcessEnergyMeter` when `snapshot()` is
/// called (the history recorder, `/metrics`), never on a timer of its own.
///
/// Watts are averages since the previous call. Calls closer together than `minimumInterval`
/// (two scrapers at once) get the last snapshot again: RAPL over a few milliseconds says more
/// about when the counter last ticked than about the host. Wakeups are not read: no figure
/// the daemon exports needs them.
package actor DaemonEnergy: EnergySnapshotSource {
    private let meter: ProcessEnergyMeter
    private let clock: any JouleClock
    private let minimumInterval: Duration
    private let log: @Sendable (String) -> Void
    private var last: (time: Double, snapshot: EnergySnapshot)?
    /// Domain names by zone id, kept for zones that have since gone (their totals stay).
    private var domainNames: [String: String] = [:]

    package init(
        source: any DeviceSource, root: FileRoot = .live, procRoot: String = "/", clock: any JouleClock = SystemClock(),
        minimumInterval: Duration = .seconds(1), readRAPL: (@Sendable (String) throws(HardwareError) -> [UInt8])? = nil,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        meter = ProcessEnergyMeter(source: source, root: root, procRoot: procRoot, clock: clock, wakeups: false, readRAPL: readRAPL)
        self.clock = clock
        self.minimumInterval = minimumInterval
        self.log = log
    }

    package func snapshot() async -> EnergySnapshot {
        if let last, clock.now() - last.time < minimumInterval.inSeconds { return last.snapshot }
        let snapshot: EnergySnapshot
        do {
            let sample = try await meter.sample()
            snapshot = EnergySnapshot(
                timestamp: sample.timestamp, source: sample.source.kind, origin: sample.source.origin,
                systemWatts: sample.systemWatts, domains: await domains(), unitJoules: sample.unitJoules)
        } catch {
            // Totals measured so far stay true; the power of this instant is unknown.
            log("energy: \(error)")
            let previous = last?.snapshot
            snapshot = EnergySnapshot(
                timestamp: clock.now(), source: previous?.source ?? .model, origin: previous?.origin ?? PowerSource.Kind.model.rawValue,
                systemWatts: nil, domains: previous?.domains ?? [], unitJoules: previous?.unitJoules ?? [:])
        }
        last = (clock.now(), snapshot)
        return snapshot
    }

    /// Every zone ever read, named `package-0`, `psys`, children `package-0/core`, with its
    /// total since the first read. A zone whose counter was never readable has no total to give.
    private func domains() async -> [EnergySnapshot.Domain] {
        let reading = await meter.raplReading
        let counters = await meter.raplMeter.counters
        for zone in reading.zones {
            let name = zone.name ?? zone.id
            domainNames[zone.id] = zone.parentID.map { parent in
                "\(reading.zone(parent)?.name ?? domainNames[parent] ?? parent)/\(name)"
            } ?? name
        }
        return counters.keys.sorted().compactMap { id in
            guard let counter = counters[id], counter.lastValue != nil else { return nil }
            return EnergySnapshot.Domain(name: domainNames[id] ?? id, joules: counter.totalJoules)
        }
    }
}
