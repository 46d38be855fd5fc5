import JouleWire
import JouleHardware
import JouleEnergy

/// One line of `joule enforce`: a class paused or resumed, and what happened to each target.
public struct EnforcementAction: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case pause, resume
    }

    public var timestamp: Double
    public var kind: Kind
    public var className: String
    /// nil for work resumed from the journal of an earlier run whose policy is unknown.
    public var level: WorkloadLevel?
    /// pause: `thermal:fair|serious|critical`, `lowPowerMode`, `rescan` (new matches of a
    /// paused class). resume: `recovered`, `exit`, `signal:SIGTERM`…, `error`, `journal`.
    public var reason: String
    public var lowPowerMode: Bool?
    public var thermalState: ThermalState?
    public var dryRun: Bool
    public var targets: [TargetOutcome]

    public init(
        timestamp: Double, kind: Kind, className: String, level: WorkloadLevel?, reason: String,
        lowPowerMode: Bool?, thermalState: ThermalState?, dryRun: Bool, targets: [TargetOutcome]
    ) {
        self.timestamp = timestamp
        self.kind = kind
        self.className = className
        self.level = level
        self.reason = reason
        self.lowPowerMode = lowPowerMode
        self.thermalState = thermalState
        self.dryRun = dryRun
        self.targets = targets
    }

    /// `{"timestamp","action","class","level","reason","lowPowerMode","thermalState","dryRun","targets"}`.
    public var json: JSONObject {
        var object: JSONObject = ["timestamp": .from(timestamp, places: 3)]
        object["action"] = .string(kind.rawValue)
        object["class"] = .string(className)
        object["level"] = .from(level?.rawValue)
        object["reason"] = .string(reason)
        object["lowPowerMode"] = .from(lowPowerMode)
        object["thermalState"] = .from(thermalState?.description)
        object["dryRun"] = .bool(dryRun)
        object["targets"] = .array(targets.map { .object($0.json) })
        return object
    }

    /// One readable line, e.g. `pause transcode (thermal:fair): ffmpeg [812] stopped`.
    public var text: String {
        let list = targets.isEmpty ? "no targets" : targets.map(\.text).joined(separator: ", ")
        return "\(dryRun ? "[dry run] " : "")\(kind.rawValue) \(className) (\(reason)): \(list)"
    }
}

/// What happened to one target of an action.
public struct TargetOutcome: Sendable, Hashable {
    public enum Result: String, Sendable, Hashable {
        /// SIGSTOP delivered.
        case stopped
        /// `cgroup.freeze` is 1 and `cgroup.events` says frozen.
        case frozen
        /// `cgroup.freeze` is 1, the kernel has not confirmed yet.
        case freezing
        /// SIGCONT delivered.
        case continued
        /// `cgroup.freeze` is 0.
        case thawed
        /// The process or cgroup had gone.
        case gone
        /// Already paused for another class (pause), or still paused for another (resume).
        case heldByOtherClass = "held-by-other-class"
        /// A safety rule keeps it untouched (see `detail`).
        case protected
        /// --dry-run: what would have been done.
        case wouldPause = "would-pause"
        case wouldResume = "would-resume"
        /// The system refused (see `detail`).
        case failed
    }

    public var target: PauseTarget
    public var result: Result
    public var detail: String?

    public init(target: PauseTarget, result: Result, detail: String? = nil) {
        self.target = target
        self.result = result
        self.detail = detail
    }

    /// The target's fields, then `result` and `detail`.
    public var json: JSONObject {
        var object = target.json
        object["result"] = .string(result.rawValue)
        object["detail"] = .from(detail)
        return object
    }

    public var text: String { "\(target) \(result.rawValue)" + (detail.map { " (\($0))" } ?? "") }
}
