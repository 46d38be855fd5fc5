/// Parses the kernel's millidegree-Celsius attributes (`temp`, `trip_point_N_temp`, `tempK_input`).
///
/// A bad value becomes an error string naming the attribute, so one broken sensor never
/// shows as a plausible temperature and never hides the others.
enum MillidegreeValue {
    /// The thermal core's THERMAL_TEMP_INVALID, and anything colder than absolute zero.
    static let invalidBelow = -273_150
    /// No sensor Joule knows of reads above this; larger values are firmware garbage
    /// (0x7fffffff-style placeholders), not heat.
    static let implausibleAbove = 500_000

    /// A temperature in °C, or an error describing why there is none.
    static func parse(_ read: AttributeRead?, attribute: String) -> Result<Double, ParseFailure> {
        switch read {
        case nil:
            return .failure(ParseFailure("\(attribute): missing"))
        case .failed(let errno)?:
            return .failure(ParseFailure("\(attribute): read failed: \(errno)"))
        case .value(let text)?:
            if text.isEmpty { return .failure(ParseFailure("\(attribute): empty")) }
            guard let milli = Int(text) else {
                return .failure(ParseFailure("\(attribute): not a number: \"\(text.prefix(32))\""))
            }
            guard milli >= invalidBelow else {
                return .failure(ParseFailure("\(attribute): invalid reading \(milli) (below absolute zero)"))
            }
            guard milli <= implausibleAbove else {
                return .failure(ParseFailure("\(attribute): implausible reading \(milli)"))
            }
            return .success(Double(milli) / 1000)
        }
    }

    /// The temperature, or nil for any failure (for optional attributes such as trips).
    static func optional(_ read: AttributeRead?, attribute: String) -> Double? {
        try? parse(read, attribute: attribute).get()
    }

    struct ParseFailure: Error, Sendable, Hashable {
        var message: String
        init(_ message: String) { self.message = message }
    }
}
