// libFuzzer entry for every Joule parser. scripts/fuzz.sh builds the modules as static
// libraries with `-sanitize=fuzzer,address -enable-testing` (so internal parsers such as
// SysfsValue and HistoryRow are reachable through @testable import), links Fuzz/*.swift to
// them, and the target is picked with JOULE_FUZZ_TARGET. Not part of the SwiftPM package.
#if canImport(Glibc)
import Glibc
#endif
@testable import JouleHardware

enum FuzzTarget: String, CaseIterable {
    case hci, ad, btsnoop, sysfs, thermal, procstat, cpustat
    case http, config, lifecycle, transferrequest, powercap, cpufreq, throttled, history, tpv
}

let fuzzTarget: FuzzTarget = {
    guard let name = getenv("JOULE_FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTarget(rawValue: name) else {
        let text = "set JOULE_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " "))\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
        exit(2)
    }
    return target
}()

/// Shared NDJSON buffer: decoding must also serialize without trapping.
nonisolated(unsafe) let lineBuffer = JSONLineBuffer(capacity: 1 << 16)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    switch fuzzTarget {
    case .hci: fuzzHCI(bytes)
    case .ad: fuzzAD(bytes)
    case .btsnoop: fuzzBTSnoop(bytes)
    case .sysfs: fuzzSysfs(bytes)
    case .thermal: fuzzThermal(bytes)
    case .procstat: _ = try? ProcessStat.parse(bytes)
    case .cpustat: fuzzCPUStat(bytes)
    case .http: fuzzHTTPHead(bytes)
    case .config: fuzzDaemonConfiguration(bytes)
    case .lifecycle: fuzzLifecycle(bytes)
    case .transferrequest: fuzzTransferRequest(bytes)
    case .powercap: fuzzPowercap(bytes)
    case .cpufreq: fuzzCPUFreq(bytes)
    case .throttled: fuzzThrottled(bytes)
    case .history: fuzzHistoryRows(bytes)
    case .tpv: fuzzTPV(bytes)
    }
    return 0
}

/// An HCI event packet (no H4 byte): the typed decoder, the allocation-free path, and the
/// NDJSON writer for every advert found.
func fuzzHCI(_ bytes: [UInt8]) {
    _ = try? HCIEvent(bytes: bytes)
    _ = bytes.withUnsafeBytes { raw in
        BeaconAdvert.forEach(inEvent: raw, timestampMicros: 1_700_000_000_123_456) { advert in
            lineBuffer.appendLine(advert)
            _ = advert.jsonObject
        }
    }
    lineBuffer.removeAll()
}

/// Advertising data: AD structures, the frame classifier and each beacon decoder directly.
func fuzzAD(_ bytes: [UInt8]) {
    _ = ADStructures.parse(bytes)
    if let frame = BeaconFrame.decode(adData: bytes) {
        let report = AdvertisingReport(
            eventType: 0, isExtended: false, addressType: AddressType(code: 0),
            address: BluetoothAddress(value: 0x0102_0304_0506), rssi: -60)
        lineBuffer.appendLine(BeaconAdvert(report: report, frame: frame, timestampMicros: nil))
        lineBuffer.removeAll()
    }
    _ = try? IBeacon(manufacturerData: bytes)
    _ = try? AltBeacon(manufacturerData: bytes)
    _ = try? EddystoneUID(frame: bytes)
    _ = try? EddystoneURL(frame: bytes)
    _ = try? EddystoneTLM(frame: bytes)
}

/// A whole capture: header checks, every record, every event decoded.
func fuzzBTSnoop(_ bytes: [UInt8]) {
    guard let reader = try? BTSnoopReader(bytes: bytes) else { return }
    while let record = reader.next() {
        guard record.type == .event else { continue }
        BeaconAdvert.forEach(inEvent: record.payload, timestampMicros: record.timestampMicros) { advert in
            lineBuffer.appendLine(advert)
        }
    }
    lineBuffer.removeAll()
}

/// Lines of the input become power_supply attribute values (first line: the type), run
/// through the UPower-style parser and the raw number readers.
let supplyAttributes = [
    "type", "status", "capacity", "energy_now", "energy_full", "energy_full_design", "power_now", "voltage_now",
    "charge_now", "charge_full", "charge_full_design", "current_now", "voltage_min_design", "cycle_count",
    "capacity_level", "online", "present", "scope", "technology", "model_name", "manufacturer", "time_to_empty_now",
]

func lines(_ bytes: [UInt8]) -> [String] {
    String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}

func fuzzSysfs(_ bytes: [UInt8]) {
    let values = lines(bytes)
    var attributes: [String: AttributeRead] = [:]
    for (name, value) in zip(supplyAttributes, values) {
        attributes[name] = value == "!" ? .failed(Errno.noData) : .value(value)
    }
    let device = DeviceSnapshot(
        subsystem: "power_supply", sysname: "BAT0", syspath: "/sys/devices/BAT0", attributes: attributes)
    let line = DeviceSnapshot(
        subsystem: "power_supply", sysname: "AC", syspath: "/sys/devices/AC",
        attributes: ["type": .value("Mains"), "online": values.count > 3 ? .value(values[3]) : .failed(Errno.noData)])
    let supplies = PowerSupplyParser.parse([device, line], productName: values.last)
    // Beyond not trapping: no impossible number may come out as a reading.
    for battery in supplies.batteries + supplies.peripherals {
        check(battery.percentage.map { (0...100).contains($0) }, "percentage \(String(describing: battery.percentage))")
        check(battery.healthPercent.map { (0...100).contains($0) }, "health \(String(describing: battery.healthPercent))")
        check(battery.energyRateW.map { $0 >= 0 && $0 <= PowerSupplyParser.maximumRateW }, "rate")
        for (name, value) in [("energy", battery.energyWh), ("full", battery.energyFullWh), ("design", battery.energyFullDesignWh), ("voltage", battery.voltageV)] {
            check(value.map { $0.isFinite && $0 >= 0 }, "\(name) \(String(describing: value))")
        }
        check(battery.timeToEmptyS.map { $0 >= 0 && Double($0) <= PowerSupplyParser.maximumEstimate.inSeconds }, "time to empty")
        check(battery.timeToFullS.map { $0 >= 0 && Double($0) <= PowerSupplyParser.maximumEstimate.inSeconds }, "time to full")
    }
    if let composite = supplies.composite {
        check(composite.percentage.map { (0...100).contains($0) }, "composite percentage")
    }
    for value in values.prefix(4) {
        check(SysfsValue.number(value).map { $0.isFinite && abs($0) <= SysfsValue.kernelIntMagnitude }, "number")
    }
}

/// Traps (which libFuzzer reports as a crash) when a decoded value breaks an invariant.
func check(_ holds: Bool?, _ what: @autoclosure () -> String) {
    if holds == false { fatalError("invariant broken: \(what())") }
}

/// Lines become a thermal zone's temp, type and trips, and an hwmon sensor's input.
let thermalAttributes = [
    "temp", "type", "trip_point_0_temp", "trip_point_0_type", "trip_point_0_hyst", "trip_point_1_temp",
    "trip_point_1_type", "mode", "policy",
]

func fuzzThermal(_ bytes: [UInt8]) {
    let values = lines(bytes)
    var attributes: [String: AttributeRead] = [:]
    for (name, value) in zip(thermalAttributes, values) { attributes[name] = .value(value) }
    let zone = DeviceSnapshot(
        subsystem: "thermal", sysname: "thermal_zone0", syspath: "/sys/devices/virtual/thermal/thermal_zone0",
        attributes: attributes)
    let cooling = DeviceSnapshot(
        subsystem: "thermal", sysname: "cooling_device0", syspath: "/sys/devices/virtual/thermal/cooling_device0",
        attributes: ["type": .value("Fan"), "cur_state": .value(values.first ?? ""), "max_state": .value(values.last ?? "")])
    var hwmonAttributes: [String: AttributeRead] = ["name": .value("coretemp")]
    for (i, value) in values.prefix(4).enumerated() {
        hwmonAttributes["temp\(i + 1)_input"] = .value(value)
        hwmonAttributes["temp\(i + 1)_crit"] = .value(values.reversed().dropFirst(i).first ?? "")
    }
    let hwmon = DeviceSnapshot(subsystem: "hwmon", sysname: "hwmon0", syspath: "/sys/devices/hwmon0", attributes: hwmonAttributes)
    let readings = ThermalReader.parse(thermal: [zone, cooling], hwmon: [hwmon])
    let plausible: (Double) -> Bool = { $0.isFinite && $0 >= -273.15 && $0 <= 500 }
    for zone in readings.zones {
        check(zone.temperatureC.map(plausible), "zone \(String(describing: zone.temperatureC))")
        for trip in zone.trips { check(trip.temperatureC.map(plausible), "trip \(String(describing: trip.temperatureC))") }
    }
    for sensor in readings.hwmon { check(sensor.temperatureC.map(plausible), "hwmon \(String(describing: sensor.temperatureC))") }
    for value in values.prefix(4) {
        check((try? MillidegreeValue.parse(.value(value), attribute: "temp").get()).map(plausible), "millidegrees")
    }
}

func fuzzCPUStat(_ bytes: [UInt8]) {
    guard let stat = try? CPUStat.parse(String(decoding: bytes, as: UTF8.self)) else { return }
    // Against itself no tick elapsed: usage is unknown, never a made-up 0 or 100.
    check(stat.usagePercent(since: stat) == nil, "usage against itself")
    for core in stat.perCoreUsagePercent(since: stat) { check(core.percent == nil, "core usage against itself") }
}
