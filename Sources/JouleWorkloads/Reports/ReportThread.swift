import JouleWire
import JouleHardware

/// One thread of a reported process.
public struct ReportThread: Sendable, Equatable {
    public var tid: Int32
    public var name: String
    /// Scheduler state name, e.g. `running`, `sleeping`.
    public var state: String
    /// CPU seconds within the sampled window; nil when the thread was sampled only once.
    public var cpuSeconds: Double?
    public var wchan: String?
    /// Kernel stack frames; nil when unreadable (it usually needs root).
    public var kernelStack: [String]?
    public var heaviest: Bool

    public init(tid: Int32, name: String, state: String, cpuSeconds: Double?, wchan: String?, kernelStack: [String]?, heaviest: Bool) {
        self.tid = tid
        self.name = name
        self.state = state
        self.cpuSeconds = cpuSeconds
        self.wchan = wchan
        self.kernelStack = kernelStack
        self.heaviest = heaviest
    }

    var json: JSONValue {
        .object([
            "tid": .int(Int(tid)),
            "name": .string(name),
            "state": .string(state),
            "cpuSeconds": .from(cpuSeconds, places: 2),
            "wchan": .from(wchan),
            "kernelStack": kernelStack.map { .array($0.map(JSONValue.string)) } ?? .null,
            "heaviest": .bool(heaviest),
        ])
    }
}
