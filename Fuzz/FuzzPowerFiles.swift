import Foundation
@testable import JouleHardware

/// A scratch root with the directories the file readers list; the files' contents come from
/// the input, through the readers' injected `readFile` or written here per run.
let scratchRoot: FileRoot = {
    // scripts/fuzz.sh makes one per target and removes it afterwards.
    let path = ProcessInfo.processInfo.environment["JOULE_FUZZ_SCRATCH"] ?? "/dev/shm/joule-fuzz-\(getpid())"
    for directory in ["intel-rapl:0", "intel-rapl:0:0", "intel-rapl:1"] {
        try? FileManager.default.createDirectory(
            atPath: path + RAPLReader.classDirectory + "/" + directory, withIntermediateDirectories: true)
    }
    try? FileManager.default.createDirectory(
        atPath: path + PowerKnobInventory.cpufreq + "/policy0", withIntermediateDirectories: true)
    return FileRoot(path)
}()

/// What the injected `readFile` returns, by path under the scratch root; `!` followed by an
/// errno name fails the read instead.
nonisolated(unsafe) var scratchFiles: [String: String] = [:]

let scratchReadFile: @Sendable (String) throws(HardwareError) -> [UInt8] = { path throws(HardwareError) in
    let relative = String(path.dropFirst(scratchRoot.prefix.count))
    guard let text = scratchFiles[relative] else { throw HardwareError(operation: "open", path: path, errno: .noEntry) }
    switch text {
    case "!EACCES": throw HardwareError(operation: "read", path: path, errno: .permissionDenied)
    case "!EIO": throw HardwareError(operation: "read", path: path, errno: .ioError)
    case "!": throw HardwareError(operation: "read", path: path)
    default: return Array(text.utf8)
    }
}

/// Lines of the input are, reading after reading, each zone's `name`, `energy_uj` and
/// `max_energy_range_uj` (three zones, a parent with a child and a second package); the
/// readings go through the wrap-correcting meter. No reading may invent energy or power.
func fuzzPowercap(_ bytes: [UInt8]) {
    let values = lines(bytes)
    let zones = ["intel-rapl:0", "intel-rapl:0:0", "intel-rapl:1"], files = ["name", "energy_uj", "max_energy_range_uj"]
    let reader = RAPLReader(root: scratchRoot, readFile: scratchReadFile)
    var meter = RAPLMeter()
    var time = 0.0
    for reading in stride(from: 0, to: max(values.count, 1), by: zones.count * files.count).prefix(6) {
        scratchFiles = [:]
        for (z, zone) in zones.enumerated() {
            for (f, file) in files.enumerated() where reading + z * files.count + f < values.count {
                scratchFiles[RAPLReader.classDirectory + "/" + zone + "/" + file] = values[reading + z * files.count + f]
            }
        }
        guard let rapl = try? reader.read() else { continue }
        check(rapl.zones.map(\.id) == zones, "zones \(rapl.zones.map(\.id))")
        time += 1
        meter.record(rapl, at: time)
        for zone in zones {
            check(meter.joules(zone: zone).map { $0.isFinite && $0 >= 0 }, "joules of \(zone)")
            check(meter.watts(zone: zone).map { $0.isFinite && $0 >= 0 }, "watts of \(zone)")
        }
        check(meter.hostWatts.map { $0.isFinite && $0 >= 0 }, "host watts \(String(describing: meter.hostWatts))")
        _ = RAPLHostDomains.unavailableReason(rapl)
    }
    for value in values.prefix(3) {
        _ = RAPLReader.indices(value)
        check(RAPLReader.parseCounter(value).map { $0 == UInt64(value) }, "counter \(value)")
    }
}

/// Lines of the input become policy0's cpufreq files and the global knob files, read back as
/// `PowerKnobInventory` reads them; the knob text decoders also see each line alone.
func fuzzCPUFreq(_ bytes: [UInt8]) {
    let values = lines(bytes)
    let policy = PowerKnobInventory.cpufreq + "/policy0/"
    let files = [
        policy + "scaling_governor", policy + "scaling_available_governors", policy + "energy_performance_preference",
        policy + "energy_performance_available_preferences", policy + "cpuinfo_min_freq", policy + "cpuinfo_max_freq",
        policy + "scaling_max_freq", PowerKnobInventory.platformProfileChoices, PowerKnobInventory.pcieASPMPolicy,
    ]
    for (index, file) in files.enumerated() {
        let path = scratchRoot.path(file)
        if index < values.count {
            try? FileManager.default.createDirectory(
                atPath: String(path[..<path.lastIndex(of: "/")!]), withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: Data(values[index].utf8))
        } else {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
    let inventory = PowerKnobInventory.read(root: scratchRoot)
    check(inventory.policies.count == 1, "policies \(inventory.policies.count)")
    for found in inventory.policies {
        for khz in [found.cpuinfoMinKHz, found.cpuinfoMaxKHz, found.scalingMaxKHz] { check(khz.map { $0 >= 0 }, "kHz \(String(describing: khz))") }
        check(found.availableGovernors.allSatisfy { !$0.isEmpty && !$0.contains(" ") }, "governors \(found.availableGovernors)")
    }
    for value in values {
        check(KnobText.integer(value).map { $0 >= 0 }, "integer \(value)")
        check(KnobText.words(value).allSatisfy { !$0.isEmpty && !$0.contains("[") && !$0.contains("]") }, "words of \(value)")
        _ = KnobText.current(value)
    }
}

/// The whole of `get_throttled`: the flags or an error naming the file, never a trap.
func fuzzThrottled(_ bytes: [UInt8]) {
    scratchFiles = [RaspberryPiThrottlingReader.path: String(decoding: bytes, as: UTF8.self)]
    let reader = RaspberryPiThrottlingReader(root: scratchRoot, readFile: scratchReadFile)
    do throws(HardwareError) {
        if let flags = try reader.read() {
            check(RaspberryPiThrottling.parse(String(flags.bits, radix: 16)) == flags, "flags round trip \(flags.bits)")
        }
    } catch {
        check("\(error)".contains("get_throttled"), "error without the file: \(error)")
    }
    _ = RaspberryPiThrottling.parse(String(decoding: bytes, as: UTF8.self))
}
