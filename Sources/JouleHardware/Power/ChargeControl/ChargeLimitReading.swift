/// A battery's charge limit as `status --json` reports it (`chargeLimit`): what the
/// thresholds read, the current `charge_behaviour`, what the battery supports, and who holds
/// the limit. Read from sysfs, `source` is `firmware` when a threshold limits charging and
/// `none` otherwise; the daemon says `emulated` when it holds the limit with
/// `charge_behaviour`.
public struct ChargeLimitReading: Sendable, Hashable {
    public var start: Int?
    public var end: Int?
    public var behaviour: String?
    public var supported: [String]
    public var source: ChargeLimitSource

    public init(start: Int? = nil, end: Int? = nil, behaviour: String? = nil, supported: [String] = [], source: ChargeLimitSource = .none) {
        self.start = start
        self.end = end
        self.behaviour = behaviour
        self.supported = supported
        self.source = source
    }

    public init(state: ChargeControlState) {
        let limits = (state.endThreshold.map { $0 < 100 } ?? false) || (state.startThreshold.map { $0 > 0 } ?? false)
        self.init(
            start: state.startThreshold, end: state.endThreshold, behaviour: state.behaviour, supported: state.supported,
            source: limits ? .firmware : .none)
    }
}
