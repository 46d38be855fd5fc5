/// A controller-level scan duty cycle: listen `window` out of every `interval`.
/// HCI counts both in 0.625 ms slots, from 2.5 ms to 10.24 s.
public struct ScanDuty: Sendable, Hashable, CustomStringConvertible {
    public var window: Duration
    public var interval: Duration

    /// Monitoring: 10 % duty, like Android's low-power scan mode.
    public static let monitoring = ScanDuty(uncheckedWindow: .milliseconds(500), interval: .milliseconds(5000))
    /// Ranging and plain scans: listen all the time.
    public static let ranging = ScanDuty(uncheckedWindow: .milliseconds(100), interval: .milliseconds(100))

    init(uncheckedWindow: Duration, interval: Duration) {
        window = uncheckedWindow
        self.interval = interval
    }

    public struct SpecError: Error, Sendable, CustomStringConvertible {
        public var spec: String
        public var reason: String
        public var description: String { "bad duty cycle \"\(spec)\": \(reason) (expected WINDOW_MS/INTERVAL_MS, e.g. 30/300)" }
    }

    /// From milliseconds, the unit of the `WINDOW_MS/INTERVAL_MS` spec.
    public init(windowMs: Double, intervalMs: Double) throws(SpecError) {
        let spec = "\(windowMs)/\(intervalMs)"
        guard windowMs.isFinite, intervalMs.isFinite, windowMs >= 2.5, intervalMs <= 10240 else {
            throw SpecError(spec: spec, reason: "window and interval must lie between 2.5 and 10240 ms")
        }
        guard windowMs <= intervalMs else { throw SpecError(spec: spec, reason: "the window cannot exceed the interval") }
        window = .milliseconds(windowMs)
        interval = .milliseconds(intervalMs)
    }

    /// Parses `WINDOW_MS/INTERVAL_MS`.
    public init(spec: String) throws(SpecError) {
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Double(parts[0]), let i = Double(parts[1]) else {
            throw SpecError(spec: spec, reason: "not two numbers separated by '/'")
        }
        do throws(SpecError) { try self.init(windowMs: w, intervalMs: i) } catch {
            throw SpecError(spec: spec, reason: error.reason)
        }
    }

    /// The duty Low Power Mode or a serious thermal state asks for: at most 5 %.
    public var reduced: ScanDuty {
        ScanDuty(uncheckedWindow: max(.microseconds(2500), min(window, interval / 20)), interval: interval)
    }

    /// HCI slots of 0.625 ms, clamped to the range the commands accept.
    public var windowSlots: UInt16 { Self.slots(window) }
    public var intervalSlots: UInt16 { Self.slots(interval) }

    static func slots(_ span: Duration) -> UInt16 { UInt16(min(max((span / .microseconds(625)).rounded(), 4), 0x4000)) }

    public var description: String {
        func text(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        return "\(text(window / .milliseconds(1)))/\(text(interval / .milliseconds(1))) ms"
    }
}
