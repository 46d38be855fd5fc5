import JouleHardware
import JouleEnergy
import JouleWorkloads
import JouleTransferQueue
import JouleHistory

/// The daemon's history recorder: a row of the engines' readings every minute and on each
/// change they announce (Low Power Mode, thermal state, charge state, line power, a supply
/// coming or going), the measured power from the energy meter when there is one, a marker
/// for each finished transfer, and each sleep the daemon accounts for at resume; kept in
/// `HistoryStore`.
///
/// Frugal: one timer (the minute), rows and markers written in batches (every 10 of either or
/// 10 minutes, when stopping, and before a read, so readers always see everything), the
/// retention applied at most once an hour. A failed write keeps the rows and markers for the
/// next attempt (at most 1,440 of each) and is logged once until writes work again.
actor DaemonHistory {
    struct Settings: Sendable {
        var interval: Duration = .seconds(60)
        var flushRows = 10
        var flushAfter: Double = 600
        var retention = HistoryRetention()
        /// Rows kept in memory while the store refuses them; the oldest go first.
        var pendingLimit = 1_440
    }

    let store: HistoryStore
    private let engine: EnergyMonitor
    private let energy: (any EnergySnapshotSource)?
    private let reports: ReportStore?
    private let clock: any JouleClock
    private let settings: Settings
    private let log: @Sendable (String) -> Void
    private var pending: [HistorySample] = []
    private var pendingEntries: [HistoryEntry] = []
    private var pendingSleeps: [SleepRecord] = []
    private var lowPowerModeReason: String?
    private var recordedChargeState: PowerSupplyState?
    private var lastRetention = -Double.infinity
    private var failing: String?
    private var loop: Task<Void, Never>?

    init(
        store: HistoryStore, engine: EnergyMonitor, energy: (any EnergySnapshotSource)?, reports: ReportStore?,
        clock: any JouleClock, settings: Settings = Settings(), log: @escaping @Sendable (String) -> Void
    ) {
        self.store = store
        self.engine = engine
        self.energy = energy
        self.reports = reports
        self.clock = clock
        self.settings = settings
        self.log = log
    }

    /// The recorder for the daemon's state directory, or nil (logged) without one or when the
    /// file cannot be opened: the daemon runs on without history. A history an older joule
    /// kept in `transfers.db` is moved into `history.db` first (logged).
    static func open(
        stateDirectory: StateDirectory?, engine: EnergyMonitor, energy: (any EnergySnapshotSource)?,
        log: @escaping @Sendable (String) -> Void
    ) -> DaemonHistory? {
        guard let stateDirectory else {
            log("history off: no state directory")
            return nil
        }
        do {
            try stateDirectory.create()
            let store = try HistoryStore(stateDirectory: stateDirectory) { log("\($0)") }
            return DaemonHistory(
                store: store, engine: engine, energy: energy, reports: ReportStore(directory: stateDirectory.reports),
                clock: SystemClock(), log: log)
        } catch {
            log("history off: cannot open \(stateDirectory.file(HistoryStore.fileName)): \(error)")
            return nil
        }
    }

    /// Records the first row and starts the minute timer.
    func start() async {
        await record(.start)
        let clock = self.clock, interval = settings.interval
        loop = Task { [weak self] in
            var next = clock.now() + interval
            while (try? await clock.sleep(until: next)) != nil {
                guard let self else { return }
                await self.tick()
                // After a suspend the timer does not catch up: the gap stays a gap.
                next = max(next + interval, clock.now() + 1)
            }
        }
    }

    /// Stops the timer, records the last row and writes what is pending.
    func stop() async {
        loop?.cancel()
        await loop?.value
        loop = nil
        await record(.stop)
        flush()
    }

    /// An engine event: a row when it is a change the history shows.
    func record(_ event: TimedEvent) async {
        let trigger: HistoryTrigger
        switch event.event {
        case .powerStateDidChange(_, let reason):
            lowPowerModeReason = reason
            trigger = .lowPowerMode
        case .thermalStateDidChange: trigger = .thermalState
        case .lineChanged: trigger = .line
        case .powerSourceAdded, .powerSourceRemoved: trigger = .supply
        case .batteryChanged:
            // Level changes come every whole percent; the minute rows carry those.
            guard await engine.lastSupplies?.composite?.state != recordedChargeState else { return }
            trigger = .chargeState
        case .warningLevelChanged: return
        }
        await record(trigger)
    }

    /// A transfer reached a final state: a marker. Markers are batched like rows: a burst of
    /// finished transfers (issue 19's soak cancelled 2,000 in 20 s) was held whole until the next
    /// 10 minute rows, 0.6 MiB, and without bound while the store refused writes.
    func transferFinished(_ transfer: Transfer) {
        guard let entry = HistoryEntry(transfer: transfer, at: clock.now()) else { return }
        pendingEntries.append(entry)
        if pendingEntries.count > settings.pendingLimit {
            pendingEntries.removeFirst(pendingEntries.count - settings.pendingLimit)
        }
        if pendingEntries.count >= settings.flushRows, failing == nil { flush() }
    }

    /// A sleep, noted at resume (issue 36). Written at once through `flush`, with whatever rows
    /// and markers are pending: sleeps are a few a day, and one noted just after a resume
    /// should survive the next crash. A write the store refuses keeps it for the next flush, as
    /// rows are kept. A record the table cannot hold (a time that is not finite, an end before
    /// its start) is logged and dropped: kept, it would fail every later write with it.
    func recordSleep(_ record: SleepRecord) async {
        guard record.start.isFinite, record.end.isFinite, record.end >= record.start else {
            log("history: not recording a sleep from \(record.start) to \(record.end): its times are not a span")
            return
        }
        pendingSleeps.append(record)
        if pendingSleeps.count > settings.pendingLimit { pendingSleeps.removeFirst(pendingSleeps.count - settings.pendingLimit) }
        flush()
    }

    /// The history between `since` and `until` as `uid` may see it (its own transfers; root
    /// and nil see all), with the reports of the state directory; pending rows are written first.
    /// Sleeps are the machine's, not a user's: every caller sees them all.
    /// A history younger than the range starts at its first row.
    func timeline(since: Double, until: Double, visibleTo uid: UInt32?) throws(HistoryStoreError) -> HistoryTimeline {
        flush()
        let (samples, entries) = try store.read(since: since, until: until, visibleTo: uid)
        var timeline = HistoryTimeline(
            since: since, until: until, source: .daemon, database: store.database.path, samples: samples, entries: entries,
            sleeps: try store.readSleeps(since: since, until: until))
        timeline.startAtFirstRow(try store.firstRowTime())
        if let reports { timeline.merge(HistoryEntry.reports(in: reports).entries) }
        return timeline
    }

    /// `GetHistory`'s handler on `bus`.
    nonisolated func handler(bus: BusConnection) -> @Sendable (Double, Double, String) async throws(BusMethodError) -> String {
        { [weak self] since, until, sender throws(BusMethodError) in
            guard let self else { throw .failed("joule daemon is stopping") }
            return try await self.reply(since: since, until: until, sender: sender, bus: bus)
        }
    }

    /// `GetHistory` from `sender`: the JSON text, with the transfers of the caller's uid.
    func reply(since: Double, until: Double, sender: String, bus: BusConnection) async throws(BusMethodError) -> String {
        let uid: UInt32
        do {
            uid = try await bus.credentials(of: sender).uid
        } catch {
            throw .failed("cannot identify the caller \(sender): \(error)")
        }
        do {
            return try timeline(since: since, until: until, visibleTo: uid).json.serialized
        } catch {
            throw .failed("\(error)")
        }
    }

    // MARK: Recording

    private func tick() async {
        await record(.minute)
        let now = clock.now()
        let oldest = min(pending.first?.timestamp ?? now, pendingEntries.first?.timestamp ?? now)
        if pending.count >= settings.flushRows || pendingEntries.count >= settings.flushRows
            || now - oldest >= settings.flushAfter
        {
            flush()
        }
        if now - lastRetention >= settings.retention.interval, failing == nil {
            lastRetention = now
            do {
                let outcome = try store.applyRetention(settings.retention, now: now)
                if outcome.aggregated + outcome.deleted > 0 {
                    log("history: \(outcome.aggregated) rows older than \(Int(settings.retention.fullResolution / 86_400)) days became \(outcome.hourly) hourly rows; \(outcome.deleted) expired")
                }
            } catch {
                log("history: retention failed: \(error)")
            }
        }
    }

    private func record(_ trigger: HistoryTrigger) async {
        let timestamp = clock.now()
        let snapshot = await energy?.snapshot()
        let sample = HistorySample(
            timestamp: timestamp, trigger: trigger, supplies: await engine.lastSupplies, thermal: await engine.lastThermal,
            lowPowerMode: await engine.lowPowerMode, lowPowerModeSource: await engine.lowPowerModeSource,
            lowPowerModeReason: lowPowerModeReason, thermalState: await engine.thermalState, energy: snapshot)
        recordedChargeState = sample.chargeState
        // Changes announced together (the cable: line, charge state, Low Power Mode) make one
        // row, named after the first.
        if trigger.isChange, let last = pending.last, last.trigger.isChange, sample.timestamp - last.timestamp < 1 {
            var merged = sample
            merged.trigger = last.trigger
            pending[pending.count - 1] = merged
            return
        }
        pending.append(sample)
        if pending.count > settings.pendingLimit { pending.removeFirst(pending.count - settings.pendingLimit) }
    }

    private func flush() {
        guard !pending.isEmpty || !pendingEntries.isEmpty || !pendingSleeps.isEmpty else { return }
        pending.sort { $0.timestamp < $1.timestamp }
        do {
            try store.append(pending, entries: pendingEntries, sleeps: pendingSleeps)
            pending = []
            pendingEntries = []
            pendingSleeps = []
            if failing != nil { log("history: writing again") }
            failing = nil
        } catch {
            let message = "\(error)"
            if failing != message {
                let sleeps = pendingSleeps.isEmpty ? "" : " and \(pendingSleeps.count) sleep\(pendingSleeps.count == 1 ? "" : "s")"
                log("history: cannot write \(pending.count) rows\(sleeps) (kept for the next try): \(message)")
            }
            failing = message
        }
    }
}

extension HistoryEntry {
    // Here, not in the history module, which knows nothing of the transfer queue.
    /// A finished transfer as a marker; nil while it is live.
    package init?(transfer: Transfer, at timestamp: Double) {
        guard !transfer.state.isLive else { return nil }
        var reason: String?
        if case .failed(let why) = transfer.state { reason = why }
        self.init(
            timestamp: timestamp, kind: .transfer, id: transfer.id, subtype: transfer.state.name,
            subject: transfer.destination ?? transfer.uploadSource ?? transfer.url, detail: reason,
            bytes: transfer.durableBytes, ownerUID: transfer.ownerUID)
    }
}
