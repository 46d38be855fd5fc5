/// Turns power_supply device snapshots into typed batteries, line sources and the composite,
/// following UPower's Linux backend (up-device-supply-battery.c, up-device-battery.c,
/// up-daemon.c) for units, quirks and aggregation. Pure: snapshots in, values out.
public enum PowerSupplyParser {
    /// UPower's threshold above which "Not charging" or an unknown state counts as full.
    public static let fullyChargedThreshold = 90.0
    /// Rates above this are firmware noise (UPower drops "300 W" readings).
    public static let maximumRateW = 300.0
    /// Estimates beyond this are not shown ("1639 h" helps nobody).
    public static let maximumEstimate: Duration = .seconds(240 * 3600)

    /// Parses every device of the power_supply subsystem. `productName` is the DMI product
    /// name (`/sys/class/dmi/id/product_name`), used for the MacBook capacity quirk.
    public static func parse(_ devices: [DeviceSnapshot], productName: String? = nil) -> PowerSupplies {
        // Apple's SMC reports a capacity that disagrees with its energy counters; UPower
        // ignores the capacity file on MacBooks and so do we.
        let ignoreCapacity = productName?.hasPrefix("MacBook") ?? false
        var batteries: [Battery] = []
        var peripherals: [Battery] = []
        var lineSources: [LineSource] = []
        for device in devices {
            switch kind(of: device) {
            case .battery:
                guard let battery = battery(device, ignoreCapacity: ignoreCapacity) else { continue }
                if battery.isPeripheral { peripherals.append(battery) } else { batteries.append(battery) }
            case .ups:
                guard let battery = battery(device, ignoreCapacity: false) else { continue }
                batteries.append(battery)
                lineSources.append(upsOutput(device, battery: battery))
            case .line(let type):
                if let source = lineSource(device, type: type) { lineSources.append(source) }
            case .ignored:
                continue
            }
        }
        batteries.sort { $0.name < $1.name }
        peripherals.sort { $0.name < $1.name }
        lineSources.sort { $0.name < $1.name }
        var supplies = PowerSupplies(batteries: batteries, peripherals: peripherals, lineSources: lineSources)
        supplies.composite = composite(of: batteries, lineOnline: supplies.lineOnline)
        return supplies
    }

    enum Kind: Equatable {
        case battery, ups, ignored
        case line(String)
    }

    /// The kernel's `type`: Battery, UPS, or a line type (Mains, USB*, Wireless, BrickID).
    /// Phone-style BMS and "Nothing attached" supplies are neither and are left out.
    static func kind(of device: DeviceSnapshot) -> Kind {
        guard let type = device.string("type") ?? device.properties["POWER_SUPPLY_TYPE"], !type.isEmpty else {
            return .ignored
        }
        let lower = type.lowercased()
        if lower == "battery" { return .battery }
        if lower == "ups" { return isDeviceScope(device) ? .ignored : .ups }
        if lower == "mains" || lower == "wireless" || lower == "brickid" || lower.hasPrefix("usb") {
            return isDeviceScope(device) ? .ignored : .line(type)
        }
        return .ignored
    }

    static func isDeviceScope(_ device: DeviceSnapshot) -> Bool {
        device.string("scope")?.lowercased() == "device"
    }

    static func lineSource(_ device: DeviceSnapshot, type: String) -> LineSource? {
        LineSource(
            name: device.sysname, syspath: device.syspath, kind: type,
            online: SysfsValue.integer(device, "online").map { $0 != 0 },
            error: SysfsValue.failures(device, numbers: ["online"]))
    }

    /// A UPS's output as a line source: online while it runs from the utility, i.e. per its
    /// `online` attribute, else while it is not discharging.
    static func upsOutput(_ device: DeviceSnapshot, battery: Battery) -> LineSource {
        var online = SysfsValue.integer(device, "online").map { $0 != 0 }
        if online == nil, battery.state != .unknown { online = battery.state != .discharging }
        return LineSource(
            name: device.sysname, syspath: device.syspath, kind: device.string("type") ?? "UPS", online: online,
            error: SysfsValue.failures(device, numbers: ["online"]))
    }

    /// One battery; nil when `present` says it is absent (an empty bay).
    public static func battery(_ device: DeviceSnapshot, ignoreCapacity: Bool = false) -> Battery? {
        if let present = SysfsValue.integer(device, "present"), present == 0 { return nil }
        let isUPS = device.string("type")?.lowercased() == "ups"
        var battery = Battery(
            name: device.sysname, syspath: device.syspath,
            isPeripheral: !isUPS && isDeviceScope(device), isUPS: isUPS)

        // Units: µWh when energy_full is usable; µAh otherwise (then × a voltage).
        let energyFull = SysfsValue.number(device, "energy_full")
        let chargeFull = SysfsValue.number(device, "charge_full")
        let chargeNow = SysfsValue.number(device, "charge_now")
        let usesCharge = !(energyFull.map { $0 >= 10_000 } ?? false) && (chargeFull != nil || chargeNow != nil)
        let designVoltage = designVoltage(device)

        // Native-unit amounts (µWh or µAh); the percentage is a ratio of these, so it is
        // known even when no voltage is.
        var nativeNow: Double?
        var nativeFull: Double?
        let nativeDesign: Double?
        if usesCharge {
            nativeNow = chargeNow.map(abs)
            nativeFull = chargeFull
            nativeDesign = SysfsValue.number(device, "charge_full_design")
        } else {
            nativeNow = SysfsValue.number(device, "energy_now").map(abs)
            if (nativeNow ?? 0) < 10_000, let average = SysfsValue.number(device, "energy_avg"), abs(average) >= 10_000 {
                nativeNow = abs(average)
            }
            nativeFull = energyFull
            nativeDesign = SysfsValue.number(device, "energy_full_design")
        }
        // µAh → µWh needs a volt figure; without one the energies stay unknown.
        let toWh: (Double) -> Double? = { native in
            if usesCharge {
                guard let designVoltage else { return nil }
                return native / 1_000_000 * designVoltage
            }
            return native / 1_000_000
        }

        // Percentage: capacity when it is above 0 (clamped), as UPower trusts the firmware.
        let capacity = ignoreCapacity ? nil : SysfsValue.number(device, "capacity").map { min(100, max(0, $0)) }
        var percentage: Double? = (capacity ?? 0) > 0 ? capacity : nil

        // No usable current amount: infer it from the percentage and the full amount.
        if (nativeNow ?? 0) < 10_000, let percentage, percentage > 0, let full = nativeFull, full > 0 {
            nativeNow = full * percentage / 100
        }
        // A battery holding more than its "full" has a stale full figure: raise it.
        if let now = nativeNow, let full = nativeFull, now > full { nativeFull = now }
        if let full = nativeFull, full <= 0 { nativeFull = nil }

        if percentage == nil {
            if let now = nativeNow, let full = nativeFull {
                percentage = min(100, max(0, now / full * 100))
            } else if capacity == 0 {
                percentage = 0
            } else if battery.isPeripheral, let level = device.string("capacity_level") {
                percentage = capacityLevelPercentage(level)
            }
        }
        battery.percentage = percentage
        battery.capacityLevel = device.string("capacity_level").flatMap { $0.isEmpty ? nil : $0 }
        battery.energyWh = nativeNow.flatMap(toWh)
        battery.energyFullWh = nativeFull.flatMap(toWh)
        battery.energyFullDesignWh = nativeDesign.flatMap { $0 > 0 ? toWh($0) : nil }
        if let full = nativeFull, let design = nativeDesign, design > 0 {
            battery.healthPercent = min(100, full / design * 100)
        }

        // Rate: |power_now|, else |current_now| × voltage; implausible rates are dropped.
        var rate: Double?
        if let power = SysfsValue.number(device, "power_now") {
            rate = abs(power) / 1_000_000
        } else if let current = SysfsValue.number(device, "current_now"), let designVoltage {
            rate = abs(current) / 1_000_000 * designVoltage
        }
        if let value = rate, value > maximumRateW { rate = nil }
        battery.energyRateW = rate

        if let now = SysfsValue.number(device, "voltage_now"), now >= 10_000 {
            battery.voltageV = now / 1_000_000
        } else if let average = SysfsValue.number(device, "voltage_avg"), average >= 10_000 {
            battery.voltageV = average / 1_000_000
        }

        battery.state = state(device, percentage: percentage, isPeripheral: battery.isPeripheral)
        (battery.timeToEmptyS, battery.timeToFullS) = estimates(
            state: battery.state, energyWh: battery.energyWh, energyFullWh: battery.energyFullWh, rateW: rate)
        // Some drivers (UPSes, fuel gauges) compute their own estimate; use it when we cannot.
        if battery.state == .discharging, battery.timeToEmptyS == nil {
            battery.timeToEmptyS = SysfsValue.integer(device, "time_to_empty_now").flatMap(plausibleEstimate)
        }
        if battery.state == .charging, battery.timeToFullS == nil {
            battery.timeToFullS = SysfsValue.integer(device, "time_to_full_now").flatMap(plausibleEstimate)
        }

        battery.cycleCount = SysfsValue.integer(device, "cycle_count").flatMap { $0 > 0 ? $0 : nil }
        battery.technology = technology(device.string("technology"))
        battery.model = SysfsValue.safeString(device, "model_name")
        battery.manufacturer = SysfsValue.safeString(device, "manufacturer")
        battery.serial = SysfsValue.safeString(device, "serial_number")
        battery.temperatureC = SysfsValue.number(device, "temp").map { $0 / 10 }
        let charge = ChargeControlState(device: device)
        battery.chargeLimit = ChargeLimitReading(state: charge)
        let failures = [SysfsValue.failures(device, numbers: batteryNumbers, texts: batteryTexts)].compactMap { $0 } + charge.problems
        battery.error = failures.isEmpty ? nil : failures.joined(separator: "; ")
        return battery
    }

    /// The numeric attributes `battery` reads, for its `error`.
    static let batteryNumbers = [
        "present", "capacity", "energy_now", "energy_avg", "energy_full", "energy_full_design", "charge_now",
        "charge_full", "charge_full_design", "power_now", "current_now", "voltage_now", "voltage_avg",
        "voltage_min_design", "voltage_max_design", "time_to_empty_now", "time_to_full_now", "cycle_count", "temp",
    ]
    /// Its text attributes, whose reads may fail too.
    static let batteryTexts = ["status", "capacity_level", "technology", "model_name", "manufacturer", "serial_number"]

    /// voltage_max_design, else voltage_min_design, else voltage_now: the first above 1 V.
    static func designVoltage(_ device: DeviceSnapshot) -> Double? {
        for name in ["voltage_max_design", "voltage_min_design", "voltage_now"] {
            if let microvolts = SysfsValue.number(device, name), microvolts / 1_000_000 > 1 {
                return microvolts / 1_000_000
            }
        }
        return nil
    }

    /// The kernel status with UPower's corrections applied.
    static func state(_ device: DeviceSnapshot, percentage: Double?, isPeripheral: Bool) -> PowerSupplyState {
        var state = PowerSupplyState(status: device.string("status"))
        // Some chargers (axp20x) say "Charging" while the battery drains; current tells the truth.
        if state != .full, let current = SysfsValue.number(device, "current_now"), current < 0 {
            state = .discharging
        }
        guard let percentage else { return state }
        // Peripherals often keep saying "Discharging" or "Unknown" when full.
        if isPeripheral, percentage >= 100, state == .discharging || state == .unknown { return .full }
        switch state {
        case .unknown:
            if percentage >= fullyChargedThreshold { return .full }
            if percentage < 1 { return .empty }
        case .notCharging:
            // Firmware that stops at the top keeps reporting "Not charging".
            if percentage >= fullyChargedThreshold { return .full }
        default:
            break
        }
        return state
    }

    /// Time to empty while discharging, to full while charging; nil without a rate or when
    /// the estimate is beyond 240 h.
    static func estimates(state: PowerSupplyState, energyWh: Double?, energyFullWh: Double?, rateW: Double?) -> (Int?, Int?) {
        guard let rateW, rateW > 0.01 else { return (nil, nil) }
        switch state {
        case .discharging:
            guard let energyWh else { return (nil, nil) }
            return (plausibleEstimate(3600 * energyWh / rateW), nil)
        case .charging:
            guard let energyWh, let energyFullWh else { return (nil, nil) }
            return (nil, plausibleEstimate(3600 * max(0, energyFullWh - energyWh) / rateW))
        default:
            return (nil, nil)
        }
    }

    static func plausibleEstimate(_ seconds: Double) -> Int? {
        guard seconds.isFinite, seconds >= 0, seconds <= maximumEstimate.inSeconds else { return nil }
        return Int(seconds.rounded())
    }

    static func plausibleEstimate(_ seconds: Int) -> Int? {
        seconds > 0 && .seconds(seconds) <= maximumEstimate ? seconds : nil
    }

    /// UPower's table for devices that only report a coarse level.
    static func capacityLevelPercentage(_ level: String) -> Double? {
        switch level {
        case "Full": 100
        case "High": 70
        case "Normal": 55
        case "Unknown": 50
        case "Low": 10
        case "Critical": 5
        default: nil
        }
    }

    /// The kernel's technology strings mapped to UPower's names; "Unknown" is nil.
    static func technology(_ text: String?) -> String? {
        switch text?.lowercased() {
        case "li-ion", "lion": "lithium-ion"
        case "li-poly", "lip", "lipo": "lithium-polymer"
        case "life": "lithium-iron-phosphate"
        case "pb", "pbac": "lead-acid"
        case "nicd": "nickel-cadmium"
        case "nimh": "nickel-metal-hydride"
        case "limn": "lithium-manganese"
        default: nil
        }
    }

    /// UPower's display device over the system batteries. A UPS, when present, is the
    /// composite on its own (a laptop on a UPS: the UPS decides how long the desk lasts).
    public static func composite(of batteries: [Battery], lineOnline: Bool) -> CompositeBattery? {
        let system = batteries.filter { !$0.isPeripheral }
        if let ups = system.first(where: \.isUPS) {
            return CompositeBattery(
                percentage: ups.percentage, energyWh: ups.energyWh, energyFullWh: ups.energyFullWh,
                energyRateW: ups.energyRateW, state: ups.state, timeToEmptyS: ups.timeToEmptyS,
                timeToFullS: ups.timeToFullS)
        }
        guard !system.isEmpty else { return nil }

        let states = system.map(\.state)
        var state: PowerSupplyState
        if states.contains(.discharging) {
            state = .discharging
        } else if states.contains(.charging) {
            state = .charging
        } else if states.contains(.notCharging) {
            state = .notCharging
        } else if states.allSatisfy({ $0 == .full }) {
            state = .full
        } else if states.allSatisfy({ $0 == .empty }) {
            state = .empty
        } else {
            state = .unknown
        }

        let energy = sum(system.map(\.energyWh))
        let energyFull = sum(system.map(\.energyFullWh))
        let rate = sum(system.map(\.energyRateW))
        var percentage: Double?
        if system.count == 1 {
            percentage = system[0].percentage
        } else if let energy, let energyFull, energyFull > 0 {
            percentage = min(100, energy / energyFull * 100)
        } else if let all = sum(system.map(\.percentage)) {
            percentage = all / Double(system.count)
        }

        // The batteries could not tell: decide by line power and level, as UPower does.
        if state == .unknown, let percentage {
            if lineOnline {
                state = percentage >= fullyChargedThreshold ? .full : .charging
            } else {
                state = percentage < 1 ? .empty : .discharging
            }
        }
        let (toEmpty, toFull) = estimates(state: state, energyWh: energy, energyFullWh: energyFull, rateW: rate)
        return CompositeBattery(
            percentage: percentage, energyWh: energy, energyFullWh: energyFull, energyRateW: rate,
            state: state, timeToEmptyS: toEmpty, timeToFullS: toFull)
    }

    /// The sum when every value is known, else nil: a partial sum would look right and be wrong.
    static func sum(_ values: [Double?]) -> Double? {
        var total = 0.0
        for value in values {
            guard let value else { return nil }
            total += value
        }
        return total
    }
}
