import RealModule

/// The curve-fitted distance estimate AltBeacon uses for Nexus-class receivers:
/// with r = rssi / txPower, distance = r^10 when r < 1, else A·r^B + C, in metres.
public struct DistanceModel: Sendable, Equatable {
    public var a: Double
    public var b: Double
    public var c: Double

    public init(a: Double = 0.42093, b: Double = 6.9476, c: Double = 0.54992) {
        self.a = a
        self.b = b
        self.c = c
    }

    public struct SpecError: Error, Sendable, CustomStringConvertible {
        public var spec: String
        public var description: String { "bad distance coefficients \"\(spec)\": expected three numbers A,B,C" }
    }

    /// Parses `A,B,C`: three finite numbers.
    public init(spec: String) throws(SpecError) {
        let parts = spec.split(separator: ",").compactMap { Double($0) }
        guard parts.count == 3, parts.allSatisfy(\.isFinite) else { throw SpecError(spec: spec) }
        self.init(a: parts[0], b: parts[1], c: parts[2])
    }

    /// Metres, or nil when either value is missing or zero (no calibration, no signal).
    public func distance(rssi: Double?, txPower: Int?) -> Double? {
        guard let rssi, let txPower, rssi != 0, txPower != 0 else { return nil }
        let ratio = rssi / Double(txPower)
        let d = ratio < 1 ? Double.pow(ratio, 10) : a * Double.pow(ratio, b) + c
        return d.isFinite ? d : nil
    }
}
