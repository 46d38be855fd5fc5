/// A chart's vertical scale: a range with round ticks (steps of 1, 2, 2.5 or 5 × 10ⁿ).
struct ValueAxis: Sendable, Hashable {
    var low: Double
    var high: Double
    var step: Double

    /// A fixed scale (the battery's 0–100 %).
    init(low: Double, high: Double, step: Double) {
        self.low = low
        self.high = high
        self.step = step
    }

    /// Round limits around `values` with about `ticks` steps, including `floor` when given
    /// (power starts at 0 W); `fallback` when nothing is known.
    init(covering values: [Double], ticks: Int = 5, including floor: Double? = nil, fallback: ClosedRange<Double>) {
        // A damaged row's 1e300 W or infinite °C must not make a scale of 10³⁰⁰ ticks (or none
        // that ends): values beyond ±limit are drawn at the limit, non-finite ones not at all.
        let values = values.filter(\.isFinite).map { min(max($0, -Self.limit), Self.limit) }
        var low = values.min() ?? fallback.lowerBound, high = values.max() ?? fallback.upperBound
        if let floor { low = min(low, floor) }
        if high - low < 1e-9 {
            low -= 1
            high += 1
        }
        let step = Self.niceStep((high - low) / Double(max(1, ticks)))
        self.low = (low / step).rounded(.down) * step
        self.high = max(self.low + step, (high / step).rounded(.up) * step)
        self.step = step
    }

    /// The largest magnitude a computed scale reaches (a terawatt; no sensor reads more).
    static let limit = 1e12

    /// The smallest 1, 2, 2.5 or 5 × 10ⁿ at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        var magnitude = 1.0
        while magnitude * 10 <= raw { magnitude *= 10 }
        while magnitude > raw { magnitude /= 10 }
        for factor in [1, 2, 2.5, 5, 10] where factor * magnitude >= raw - 1e-12 { return factor * magnitude }
        return 10 * magnitude
    }

    var ticks: [Double] {
        var ticks: [Double] = []
        var value = low
        while value <= high + step * 1e-6 {
            ticks.append(abs(value) < step * 1e-9 ? 0 : value)
            value += step
        }
        return ticks
    }

    /// A tick's label with the decimals it needs: `0`, `2.5`, `10`.
    func label(_ value: Double) -> String {
        let hundredths = Int64((value * 100).rounded())
        let whole = abs(hundredths) / 100, fraction = abs(hundredths) % 100
        var text = (hundredths < 0 ? "-" : "") + String(whole)
        if fraction != 0 {
            text += "." + (fraction < 10 ? "0" : "") + String(fraction)
            while text.hasSuffix("0") { text.removeLast() }
        }
        return text
    }
}
