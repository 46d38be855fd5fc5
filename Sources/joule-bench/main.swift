// joule-bench: in-process timings of library hot paths for scripts/bench.py. Thin on purpose:
// it times the public APIs (ProcessSampler, ProcessEnergyAccounting and ProcessEnergyMeter,
// BTSnoopReader + BeaconAdvert + the NDJSON writer, HTTPRangeDownloader) on the monotonic clock
// and prints one JSON object. Not a test: nothing is asserted.
import JouleWire
import JouleHardware
import JouleEnergy
import JouleHTTP

let origin = ContinuousClock.now

/// Nanoseconds since start, on the monotonic clock.
func now() -> UInt64 {
    let elapsed = origin.duration(to: .now).components
    return UInt64(elapsed.seconds) * 1_000_000_000 + UInt64(elapsed.attoseconds / 1_000_000_000)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

func fail(_ message: String) -> Never {
    Console.error("joule-bench: \(message)")
    CurrentProcess.exit(2)
}

func option(_ name: String, _ arguments: [String], default value: Int) -> Int {
    guard let i = arguments.firstIndex(of: name) else { return value }
    guard i + 1 < arguments.count, let n = Int(arguments[i + 1]), n > 0 else { fail("\(name) needs a positive integer") }
    return n
}

/// Per-process cost of sampling every process: one warm-up sample opens the descriptors,
/// then each round times one full sample() (listing /proc included).
func sample(_ arguments: [String]) {
    let rounds = option("--rounds", arguments, default: 50)
    let sampler = ProcessSampler()
    let coldStart = now()
    let first: [ProcessCPUSample]
    do { first = try sampler.sample() } catch { fail("\(error)") }
    let cold = Double(now() - coldStart)
    var perProcess: [Double] = []
    var perSample: [Double] = []
    var counts: [Double] = []
    for _ in 0..<rounds {
        let start = now()
        let samples: [ProcessCPUSample]
        do { samples = try sampler.sample() } catch { fail("\(error)") }
        let elapsed = Double(now() - start)
        perSample.append(elapsed)
        perProcess.append(elapsed / Double(max(1, samples.count)))
        counts.append(Double(samples.count))
    }
    print(
        "{\"processes\":\(Int(median(counts))),\"rounds\":\(rounds),\"nsPerProcess\":\(median(perProcess)),"
            + "\"nsPerSample\":\(median(perSample)),\"coldNsPerProcess\":\(cold / Double(max(1, first.count))),"
            + "\"openDescriptors\":\(sampler.openDescriptorCount)}")
}

/// `joule top`'s attribution per sample over every live process: `ProcessEnergyAccounting.record`
/// (deltas by identity, Kepler's active/idle split, the shares, energy since start per process
/// and per unit, the rows) on readings taken between the timed calls, with a host figure of
/// 15 W supplied so that every share is computed (this machine may have no RAPL). Then the
/// whole `ProcessEnergyMeter.sample()`: power source, /proc/stat, every process's CPU time and
/// voluntary switches, labels, attribution.
func energy(_ arguments: [String]) async {
    let rounds = option("--rounds", arguments, default: 50)
    let sampler = ProcessSampler()
    let cpu = CPUStatReader()
    let procfs = ProcFS()
    let source = PowerSource(kind: .rapl, rapl: RAPLHostDomains(basis: .psys, zoneIDs: ["intel-rapl:1"]))
    var labels: [ProcessIdentity: ProcessEnergyAccounting.Label] = [:]
    var accounting = ProcessEnergyAccounting()
    var time = 0.0
    func reading() -> ProcessEnergyAccounting.Reading {
        let processes: [ProcessCPUSample]
        let node: CPUTimes
        do {
            processes = try sampler.sample(voluntarySwitches: true)
            node = try cpu.read().all
        } catch { fail("\(error)") }
        let named = processes.map { process in
            if let known = labels[process.identity] { return known }
            let label = ProcessEnergyAccounting.Label(
                name: (try? procfs.stat(process.pid))?.comm ?? "?", unit: procfs.cgroup(process.pid).map(SystemdUnitLabel.unit(cgroupPath:)))
            labels[process.identity] = label
            return label
        }
        time += 1
        return .init(time: time, processes: processes, labels: named, node: node, source: source, hostWatts: 15)
    }
    _ = accounting.record(reading())
    var attribute: [Double] = []
    var counts: [Double] = []
    for _ in 0..<rounds {
        let next = reading()
        let start = now()
        let sample = accounting.record(next)
        attribute.append(Double(now() - start))
        counts.append(Double(sample.processes.count))
    }
    let meter = ProcessEnergyMeter(source: UdevDeviceSource(), clock: SystemClock())
    do { _ = try await meter.sample() } catch { fail("\(error)") }
    var whole: [Double] = []
    for _ in 0..<max(1, rounds / 2) {
        let start = now()
        do { _ = try await meter.sample() } catch { fail("\(error)") }
        whole.append(Double(now() - start))
    }
    print(
        "{\"processes\":\(Int(median(counts))),\"rounds\":\(rounds),\"attributeNsPerSample\":\(median(attribute)),"
            + "\"sampleNsPerSample\":\(median(whole)),\"sampleRounds\":\(whole.count)}")
}

/// Adverts per second decoding a capture into NDJSON, the buffer emptied in 1 MiB chunks as the
/// CLI flushes it (the write itself is left out: this times decoding and formatting).
func decode(_ arguments: [String]) {
    guard arguments.count >= 1 else { fail("decode FILE [--rounds N]") }
    let path = arguments[0]
    let rounds = option("--rounds", arguments, default: 5)
    let buffer = JSONLineBuffer(capacity: 1 << 21)
    var rates: [Double] = []
    var adverts = 0
    for _ in 0..<rounds {
        adverts = 0
        let start = now()
        let reader: BTSnoopReader
        do throws(BTSnoopError) { reader = try BTSnoopReader(path: path) } catch { fail("\(error)") }
        while let record = reader.next() {
            guard record.type == .event, record.received else { continue }
            BeaconAdvert.forEach(inEvent: record.payload, timestampMicros: record.timestampMicros) { advert in
                buffer.appendLine(advert)
                adverts += 1
            }
            if buffer.count >= 1 << 20 { buffer.removeAll() }
        }
        buffer.removeAll()
        rates.append(Double(adverts) / (Double(now() - start) / 1e9))
    }
    print("{\"adverts\":\(adverts),\"rounds\":\(rounds),\"advertsPerSecond\":\(median(rates))}")
}

/// One download of URL to DEST by HTTPRangeDownloader, as the daemon runs it: the default
/// durable cadence (fsync and commit every `--sync-bytes` or `--sync-ms`, defaults 1 MiB / 1 s),
/// the length check and the durable rename included. Timed from the request to the rename.
func download(_ arguments: [String]) async {
    guard arguments.count >= 2 else { fail("download URL DEST [--sync-bytes N] [--sync-ms N]") }
    let syncBytes = option("--sync-bytes", arguments, default: Int(HTTPRangeDownloader.defaultSyncBytes))
    let syncMillis = option("--sync-ms", arguments, default: Int(HTTPRangeDownloader.defaultSyncInterval.inSeconds * 1000))
    let downloader = HTTPRangeDownloader(syncBytes: Int64(syncBytes), syncInterval: .milliseconds(syncMillis))
    let commits = Counter()
    let start = now()
    let result = await downloader.attempt(DownloadRequest(url: arguments[0], destination: arguments[1])) { _ in commits.add() }
    let seconds = Double(now() - start) / 1e9
    try? await downloader.shutdown()
    guard case .completed = result.outcome else { fail("download ended with \(result.outcome)") }
    print(
        "{\"bytes\":\(result.durableBytes),\"seconds\":\(seconds),\"commits\":\(commits.value),"
            + "\"syncBytes\":\(syncBytes),\"syncMs\":\(syncMillis)}")
}

/// Counts durable commits; the downloader reports them from its own task.
final class Counter: Sendable {
    private let count = Locked<Int>(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "sample": sample(Array(arguments.dropFirst()))
case "energy": await energy(Array(arguments.dropFirst()))
case "decode": decode(Array(arguments.dropFirst()))
case "download": await download(Array(arguments.dropFirst()))
default: fail("usage: joule-bench sample [--rounds N] | energy [--rounds N] | decode FILE [--rounds N] | download URL DEST [--sync-bytes N] [--sync-ms N]")
}
