import JouleWire
import JouleHardware

/// One knob's outcome, for `GetStatus` and `status --json`'s `lowPowerActions`.
public struct KnobOutcome: Sendable, Hashable {
    public var knob: String
    /// The kernel's path.
    public var path: String
    /// What the file read before joule wrote it; nil when it could not be read.
    public var original: String?
    /// What joule wrote (as the file read back after the write).
    public var written: String
    public var state: KnobState

    public init(knob: String, path: String, original: String?, written: String, state: KnobState) {
        self.knob = knob
        self.path = path
        self.original = original
        self.written = written
        self.state = state
    }

    /// `{"knob","path","original","written","state"}`, in that order; `original` is null
    /// when unknown.
    public var json: JSONValue {
        .object([
            "knob": .string(knob), "path": .string(path), "original": .from(original),
            "written": .string(written), "state": .string(state.description),
        ])
    }
}
