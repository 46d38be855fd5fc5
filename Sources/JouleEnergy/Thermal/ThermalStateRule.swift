import JouleHardware

/// Derives `ThermalState` from one thermal reading, as the worst over all inputs.
///
/// For a zone at temperature T, with C its lowest critical trip and P its lowest passive trip
/// (C − 15 °C when it has none): critical at T ≥ C − 5 or any hot trip; serious at T ≥ P;
/// fair at T ≥ P − 10 or any active trip. hwmon inputs vote the same way with `crit` as C and
/// `max` as P, since machines without ACPI zones (many desktops, some boards) expose only those.
/// A Processor cooling device votes by how far the kernel has already throttled the CPU.
public enum ThermalStateRule {
    /// Processor cooling-device load (cur/max) at which each state begins.
    public static let coolingLoadThresholds: [(ThermalState, Double)] = [(.critical, 0.8), (.serious, 0.5), (.fair, 0.1)]

    public static func evaluate(_ readings: ThermalReadings) -> ThermalAssessment {
        var votes: [ThermalVote] = []
        for zone in readings.zones where zone.isEnabled {
            guard let temperature = zone.temperatureC, let thresholds = thresholds(for: zone) else { continue }
            votes.append(vote(name: zone.name, source: .zone, temperature: temperature, thresholds: thresholds))
        }
        for sensor in readings.hwmon {
            guard let temperature = sensor.temperatureC, let thresholds = thresholds(for: sensor) else { continue }
            votes.append(vote(name: sensor.name, source: .hwmon, temperature: temperature, thresholds: thresholds))
        }
        for device in readings.coolingDevices where device.type == "Processor" {
            guard let load = device.load else { continue }
            let state = coolingLoadThresholds.first { load >= $0.1 }?.0 ?? .nominal
            let reason = "throttled \(device.curState ?? 0)/\(device.maxState ?? 0)"
            votes.append(ThermalVote(
                name: device.name, source: .coolingDevice, state: state, temperatureC: nil,
                thresholds: nil, reason: reason))
        }
        let worst = votes.max { $0.state < $1.state }
        guard let worst, worst.state > .nominal else {
            return ThermalAssessment(state: .nominal, cause: nil, votes: votes)
        }
        let cause = votes.first { $0.state == worst.state }
        return ThermalAssessment(state: worst.state, cause: cause?.name, votes: votes)
    }

    /// Thresholds from a zone's trips; nil for a zone with no usable trips, which does not vote.
    public static func thresholds(for zone: ThermalZone) -> ThermalThresholds? {
        func lowest(_ kind: TripPoint.Kind) -> TripPoint? {
            zone.trips
                .compactMap { trip in trip.temperatureC.map { (trip, $0) } }
                // Firmware writes 0 °C (or less) for trips it does not use, e.g. the two passive
                // trips of every x86_pkg_temp zone; such a trip would make any zone "serious".
                .filter { $0.0.kind == kind && $0.1 > 0 }
                .min { $0.1 < $1.1 }?.0
        }
        let critical = lowest(.critical), passive = lowest(.passive), hot = lowest(.hot), active = lowest(.active)
        guard critical != nil || passive != nil || hot != nil || active != nil else { return nil }

        let c = critical?.temperatureC
        let p = passive?.temperatureC ?? c.map { $0 - 15 }
        let criticalC = minimum(c.map { $0 - 5 }, hot?.temperatureC)
        let fairC = minimum(p.map { $0 - 10 }, active?.temperatureC)
        let hysteresis = [critical, passive, hot, active].compactMap { $0?.hysteresisC }.max() ?? 0
        return ThermalThresholds(fairC: fairC, seriousC: p, criticalC: criticalC, hysteresisC: hysteresis)
    }

    /// Thresholds from hwmon limits (`crit` as the critical trip, `max` as the passive trip).
    public static func thresholds(for sensor: HwmonSensor) -> ThermalThresholds? {
        let c = sensor.criticalC.flatMap { $0 > 0 ? $0 : nil }
        let p = sensor.maxC.flatMap { $0 > 0 ? $0 : nil } ?? c.map { $0 - 15 }
        guard c != nil || p != nil else { return nil }
        return ThermalThresholds(fairC: p.map { $0 - 10 }, seriousC: p, criticalC: c.map { $0 - 5 })
    }

    private static func vote(
        name: String, source: ThermalVote.Source, temperature: Double, thresholds: ThermalThresholds
    ) -> ThermalVote {
        let state = thresholds.state(at: temperature)
        let reason: String
        if let threshold = thresholds.threshold(for: state) {
            reason = "\(celsius(temperature)) ≥ \(celsius(threshold)) (\(state) threshold)"
        } else {
            reason = "\(celsius(temperature)), below every threshold"
        }
        return ThermalVote(
            name: name, source: source, state: state, temperatureC: temperature,
            thresholds: thresholds, reason: reason)
    }

    private static func minimum(_ a: Double?, _ b: Double?) -> Double? {
        switch (a, b) {
        case let (a?, b?): min(a, b)
        case let (a?, nil): a
        case let (nil, b?): b
        case (nil, nil): nil
        }
    }

    private static func celsius(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return "\(tenths) °C"
    }
}
