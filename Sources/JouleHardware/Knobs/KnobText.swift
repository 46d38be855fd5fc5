/// Pure decoders for the text of sysfs knob files: values, space-separated choice lists and
/// integers. Text in, a value or nil out; they never trap.
public enum KnobText {
    /// The value a knob reads as: the text without surrounding whitespace and NULs; for a
    /// selection list that marks its choice in brackets (`default [powersave] performance`,
    /// as `pcie_aspm/parameters/policy` reads), the marked choice.
    public static func current(_ text: String) -> String {
        let trimmed = trim(text)
        if let open = trimmed.firstIndex(of: "["),
           let close = trimmed[open...].firstIndex(of: "]") {
            let choice = trimmed[trimmed.index(after: open)..<close]
            if !choice.isEmpty, !choice.contains(" ") { return String(choice) }
        }
        return trimmed
    }

    /// The words of a choice list such as `scaling_available_governors` or
    /// `platform_profile_choices`, brackets removed.
    public static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\0" })
            .map { word in String(word.filter { $0 != "[" && $0 != "]" }) }
            .filter { !$0.isEmpty }
    }

    /// A non-negative integer (kHz, 0/1 flags); nil for anything else.
    public static func integer(_ text: String) -> Int? {
        let trimmed = trim(text)
        guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(trimmed)
    }

    static func trim(_ text: String) -> String {
        let junk: Set<Character> = [" ", "\n", "\t", "\0", "\r"]
        guard let first = text.firstIndex(where: { !junk.contains($0) }),
              let last = text.lastIndex(where: { !junk.contains($0) }) else { return "" }
        return String(text[first...last])
    }
}
