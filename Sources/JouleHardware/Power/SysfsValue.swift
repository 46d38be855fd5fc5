/// Strict readers for power_supply attribute text. A value that is not a plain decimal
/// number (garbage, "-NaN", empty) is nil, never 0.
enum SysfsValue {
    /// The kernel formats power_supply numbers from a C `int` (power_supply_propval.intval):
    /// anything larger is firmware or file garbage, and shown as energy it would read as
    /// e.g. 10^24 Wh.
    static let kernelIntMagnitude = Double(Int32.max)

    /// A decimal number such as `48000000`, `-787000` or `12.5`; nil for anything else.
    static func number(_ device: DeviceSnapshot, _ name: String) -> Double? {
        guard let text = device.string(name) else { return nil }
        return number(text)
    }

    static func number(_ text: String) -> Double? {
        var digits = 0
        var dots = 0
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            switch scalar {
            case "0"..."9": digits += 1
            case ".": dots += 1
            case "-" where offset == 0, "+" where offset == 0: continue
            default: return nil
            }
        }
        guard digits > 0, dots <= 1, text.utf8.count <= 32, let value = Double(text), value.isFinite,
            abs(value) <= kernelIntMagnitude
        else {
            return nil
        }
        return value
    }

    /// Why attributes a reading uses gave nothing: each whose read failed (with its errno's
    /// name) or whose number is unusable, as `energy_now: read failed: Permission denied
    /// (EACCES)`, joined with `; `; nil when every one present was usable. An absent attribute
    /// is no failure: drivers differ in what they provide.
    static func failures(_ device: DeviceSnapshot, numbers: [String], texts: [String] = []) -> String? {
        var problems: [String] = []
        for name in numbers + texts {
            switch device.attributes[name] {
            case .failed(let errno)?:
                problems.append("\(name): read failed: \(errno)")
            case .value(let text)? where numbers.contains(name) && number(text) == nil:
                problems.append(text.isEmpty ? "\(name): empty" : "\(name): not a number: \"\(text.prefix(32))\"")
            default:
                break
            }
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// An integer attribute; nil for garbage or values beyond Int.
    static func integer(_ device: DeviceSnapshot, _ name: String) -> Int? {
        guard let text = device.string(name) else { return nil }
        return Int(text)
    }

    /// A vendor string with invalid UTF-8 (decoded as U+FFFD) and control characters
    /// dropped, as UPower makes it safe; nil when nothing printable remains.
    static func safeString(_ device: DeviceSnapshot, _ name: String) -> String? {
        guard let text = device.string(name) else { return nil }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) || value == 0xFFFD { continue }
            scalars.append(scalar)
        }
        let result = DeviceAttributePolicy.text(String(scalars))
        return result.isEmpty ? nil : result
    }
}
