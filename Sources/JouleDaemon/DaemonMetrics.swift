import JouleHardware
import JouleEnergy
import JouleWorkloads

/// The daemon's Prometheus side: a `MetricsSample` gathered from its parts only when asked (a
/// scrape, or `GetMetrics` for `joule export`), and the `/metrics` endpoint the config's
/// `metrics:` asks for. Nothing here runs between asks.
actor DaemonMetrics {
    /// Where the figures live.
    struct Parts: Sendable {
        var engine: EnergyMonitor
        var workloads: DaemonWorkloads?
        var transfers: DaemonTransfers?
        var energy: (any EnergySnapshotSource)?
        var throttling: RaspberryPiThrottlingReader
        var sleep: DaemonSleep?
    }

    private let exporter: any MetricsExporter
    private let parts: Parts
    private let log: @Sendable (String) -> Void
    private var endpoint: (any MetricsEndpoint)?
    private var settings = MetricsSettings()
    /// The last get_throttled failure logged, so a broken file is told once, not per scrape.
    private var throttlingProblem: String?

    init(exporter: any MetricsExporter, parts: Parts, log: @escaping @Sendable (String) -> Void) {
        self.exporter = exporter
        self.parts = parts
        self.log = log
    }

    /// Starts, moves or stops the endpoint to match `fresh` (start, and each SIGHUP). A port
    /// that cannot be bound is logged and the daemon carries on without the endpoint.
    func apply(_ fresh: MetricsSettings) async {
        if endpoint != nil, fresh == settings { return }
        settings = fresh
        await closeEndpoint()
        guard fresh.enabled else { return }
        do {
            let endpoint = try await exporter.serve(at: fresh.listen) { [weak self] in await self?.sample() ?? MetricsSample() }
            self.endpoint = endpoint
            log("serving /metrics on http://\(endpoint.address)/metrics")
        } catch {
            log("\(error); carrying on without it")
        }
    }

    func stop() async { await closeEndpoint() }

    private func closeEndpoint() async {
        guard let endpoint else { return }
        self.endpoint = nil
        await endpoint.close()
        log("stopped serving /metrics on \(endpoint.address)")
    }

    /// The `GetMetrics` reply: the text `/metrics` would serve now.
    func exposition() async -> String { exporter.exposition(await sample()) }

    /// Every figure, read now.
    func sample() async -> MetricsSample {
        let engine = parts.engine
        var sample = MetricsSample(
            lowPowerMode: await engine.lowPowerMode, lowPowerModeSource: await engine.lowPowerModeSource,
            thermalState: await engine.thermalState)
        sample.energy = await parts.energy?.snapshot()
        if let workloads = parts.workloads {
            (sample.pausedClasses, sample.violations, sample.beacons) = await workloads.metrics(now: WallClock.micros())
        }
        if let transfers = parts.transfers {
            let figures = await transfers.metrics()
            sample.transfers = figures.states
            sample.transferBytes = figures.bytes
        }
        sample.throttling = throttling()
        if let sleep = parts.sleep, await sleep.following {
            sample.sleeps = await sleep.count
            sample.lastSleepDrainPercentPerHour = await sleep.last?.drainPercentPerHour
        }
        return sample
    }

    private func throttling() -> RaspberryPiThrottling? {
        do {
            let flags = try parts.throttling.read()
            throttlingProblem = nil
            return flags
        } catch {
            let problem = "\(error)"
            if problem != throttlingProblem { log("metrics: joule_throttled left out: \(problem)") }
            throttlingProblem = problem
            return nil
        }
    }
}
