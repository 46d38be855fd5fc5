/// A cooling device (`/sys/class/thermal/cooling_deviceN`): a fan, or a CPU frequency limit.
public struct CoolingDevice: Sendable, Hashable {
    /// Kernel name, e.g. `cooling_device0`.
    public var name: String
    /// e.g. `Processor`, `Fan`, `intel_powerclamp`, `pwm-fan`.
    public var type: String?
    public var curState: Int?
    public var maxState: Int?
    /// Why a state is nil, naming the attribute and the failure.
    public var error: String?

    public init(name: String, type: String?, curState: Int?, maxState: Int?, error: String? = nil) {
        self.name = name
        self.type = type
        self.curState = curState
        self.maxState = maxState
        self.error = error
    }

    /// cur/max in 0...1, or nil when either is unknown or max is 0.
    public var load: Double? {
        guard let curState, let maxState, maxState > 0 else { return nil }
        return min(1, max(0, Double(curState) / Double(maxState)))
    }
}
