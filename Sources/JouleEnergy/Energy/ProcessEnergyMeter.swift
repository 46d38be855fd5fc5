import JouleHardware

/// The engine behind `joule top` and the daemon's energy figures. Each `sample()` reads the
/// host's power source (RAPL through powercap, else a discharging battery, else nothing: see
/// `PowerSource.choose`), /proc/stat, and every process through `ProcessSampler`, then lets
/// `ProcessEnergyAccounting` split the interval's energy by CPU time, as Kepler does.
///
/// It has no timer of its own: `run` samples every interval for `joule top`; the daemon calls
/// `sample()` when someone asks. Roots and the clock are injected; `readRAPL` lets tests
/// produce what an unprivileged user gets (EACCES on `energy_uj`) while running as root.
public actor ProcessEnergyMeter {
    private let clock: any JouleClock
    private let rapl: RAPLReader
    private let supplies: PowerSupplyReader
    private let cpu: CPUStatReader
    private let procfs: ProcFS
    private let sampler: ProcessSampler
    private let wakeups: Bool
    private var accounting: ProcessEnergyAccounting
    /// Wrap-corrected counters of every RAPL zone, and the last reading's zones (for names).
    public private(set) var raplMeter = RAPLMeter()
    public private(set) var raplReading = RAPLReading()
    private var lastBatteryWatts: Double?

    private struct Labelled {
        var label: ProcessEnergyAccounting.Label
        var readAt: Int
        var sightings: Int
    }
    private var labels: [ProcessIdentity: Labelled] = [:]
    private var samples = 0
    /// Comm and cgroup are read when a process is first seen, again at its second sample
    /// (between fork and exec, or before a launcher moves it into its scope, both are still the
    /// parent's), then every this many samples.
    private static let labelRefreshSamples = 30

    /// - Parameters:
    ///   - source: devices for the power_supply class (libudev live, or a fixture tree).
    ///   - root: where `sys/class/powercap` is read.
    ///   - procRoot: where `proc/` is read.
    ///   - wakeups: also read voluntary context switches (costly: `joule top` wants them, the
    ///     daemon does not).
    public init(
        source: any DeviceSource, root: FileRoot = .live, procRoot: String = "/", clock: any JouleClock,
        wakeups: Bool = true, readRAPL: (@Sendable (String) throws(HardwareError) -> [UInt8])? = nil,
        ticksPerSecond: Int = CurrentProcess.clockTicksPerSecond
    ) {
        self.clock = clock
        rapl = readRAPL.map { RAPLReader(root: root, readFile: $0) } ?? RAPLReader(root: root)
        supplies = PowerSupplyReader(source: source)
        cpu = CPUStatReader(root: procRoot)
        procfs = ProcFS(root: procRoot)
        sampler = ProcessSampler(root: procRoot, ticksPerSecond: ticksPerSecond)
        self.wakeups = wakeups
        accounting = ProcessEnergyAccounting(ticksPerSecond: ticksPerSecond)
    }

    /// Measures the interval since the previous call (the first call is a baseline). Throws
    /// only when /proc or /proc/stat cannot be read; a power source that cannot be read is
    /// passed over, with the reason in `source.passedOver`.
    public func sample() throws(HardwareError) -> ProcessEnergySample {
        let time = clock.now()
        let (source, hostWatts) = measureHost(at: time)
        let node = try cpu.read().all
        let processes = try sampler.sample(voluntarySwitches: wakeups)
        samples += 1
        var current: [ProcessIdentity: Labelled] = [:]
        current.reserveCapacity(processes.count)
        var processLabels: [ProcessEnergyAccounting.Label] = []
        processLabels.reserveCapacity(processes.count)
        for process in processes {
            var known = labels[process.identity] ?? Labelled(label: readLabel(process.pid), readAt: samples, sightings: 0)
            known.sightings += 1
            if known.readAt != samples, known.sightings == 2 || samples - known.readAt >= Self.labelRefreshSamples {
                known.label = readLabel(process.pid, fallback: known.label)
                known.readAt = samples
            }
            current[process.identity] = known
            processLabels.append(known.label)
        }
        labels = current
        return accounting.record(.init(
            time: time, processes: processes, labels: processLabels, node: node, source: source, hostWatts: hostWatts))
    }

    /// Samples every `interval` (on a fixed schedule, so slow reads do not make it drift)
    /// after a baseline, handing each sample to `body`, `count` times or until cancelled.
    public func run(every interval: Duration, count: Int?, _ body: @Sendable (ProcessEnergySample) async -> Void) async throws(HardwareError) {
        let start = clock.now()
        _ = try sample()
        var delivered = 0
        while count.map({ delivered < $0 }) ?? true {
            do {
                try await clock.sleep(until: start + interval * (delivered + 1))
            } catch {
                return
            }
            await body(try sample())
            delivered += 1
        }
    }

    /// The power source and the host's average power since the last sample. A battery's rate
    /// is instantaneous: the mean of this and the last reading stands for the interval.
    private func measureHost(at time: Double) -> (PowerSource, Double?) {
        var readFailure: String?
        do {
            raplReading = try rapl.read()
        } catch {
            raplReading = RAPLReading()
            readFailure = "rapl: \(error)"
        }
        raplMeter.record(raplReading, at: time)
        var supplyFailure: String?
        let supplies: PowerSupplies
        do {
            supplies = try self.supplies.read()
        } catch {
            supplies = PowerSupplies()
            supplyFailure = "battery: cannot read the power_supply class: \(error)"
        }
        var source = PowerSource.choose(rapl: raplReading, supplies: supplies)
        source.passedOver = source.passedOver.map { reason in
            if let readFailure, reason.hasPrefix("rapl:") { return readFailure }
            if let supplyFailure, reason.hasPrefix("battery:") { return supplyFailure }
            return reason
        }
        let batteryWatts = source.battery?.watts
        defer { lastBatteryWatts = batteryWatts }
        switch source.kind {
        case .rapl: return (source, raplMeter.hostWatts)
        case .battery: return (source, batteryWatts.map { now in lastBatteryWatts.map { ($0 + now) / 2 } ?? now })
        case .model: return (source, nil)
        }
    }

    /// The process's comm and normalised unit; a process gone meanwhile keeps what was known.
    private func readLabel(_ pid: Int32, fallback: ProcessEnergyAccounting.Label? = nil) -> ProcessEnergyAccounting.Label {
        guard let stat = try? procfs.stat(pid) else { return fallback ?? .init(name: "?", unit: nil) }
        return .init(name: stat.comm, unit: procfs.cgroup(pid).map(SystemdUnitLabel.unit(cgroupPath:)) ?? fallback?.unit)
    }
}
