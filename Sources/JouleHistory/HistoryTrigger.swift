/// Why a history row was written: the minute timer, a change the engines announced, the
/// daemon starting or stopping, or the hourly down-sampling of rows older than 30 days.
package enum HistoryTrigger: String, Sendable, Hashable, CaseIterable {
    case start, minute, stop
    /// Low Power Mode turned on or off (or its source changed).
    case lowPowerMode
    case thermalState
    /// The composite battery's charge state (charging, discharging, full, …).
    case chargeState
    /// A line power source went on or off line.
    case line
    /// A battery or line source appeared or vanished.
    case supply
    /// An hour of older rows, aggregated (`HistoryRetention`).
    case hourly

    /// Whether the row marks a change rather than a periodic reading.
    package var isChange: Bool {
        switch self {
        case .lowPowerMode, .thermalState, .chargeState, .line, .supply: true
        case .start, .minute, .stop, .hourly: false
        }
    }
}
