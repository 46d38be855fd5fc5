/// What a battery's charge controls read now. A threshold that is present but does not read as
/// an integer in 0...100 is nil, with a problem naming the file and its text: unknown, never a
/// guess.
public struct ChargeControlState: Sendable, Hashable {
    /// The attributes the battery has.
    public var present: Set<ChargeAttribute>
    public var startThreshold: Int?
    public var endThreshold: Int?
    /// The current `charge_behaviour` (the bracketed word), and every one offered.
    public var behaviour: String?
    public var behaviours: [String]
    /// The current `charge_types` (the bracketed word), and every one offered.
    public var chargeType: String?
    public var chargeTypes: [String]
    /// Attributes that could not be read or decoded, each naming the file.
    public var problems: [String]

    public init(
        present: Set<ChargeAttribute> = [], startThreshold: Int? = nil, endThreshold: Int? = nil, behaviour: String? = nil,
        behaviours: [String] = [], chargeType: String? = nil, chargeTypes: [String] = [], problems: [String] = []
    ) {
        self.present = present
        self.startThreshold = startThreshold
        self.endThreshold = endThreshold
        self.behaviour = behaviour
        self.behaviours = behaviours
        self.chargeType = chargeType
        self.chargeTypes = chargeTypes
        self.problems = problems
    }

    /// Decodes the texts the battery gave (`texts[attribute]` absent: the attribute is
    /// absent); `location` names a file in problems.
    public init(texts: [ChargeAttribute: String], location: (ChargeAttribute) -> String) {
        self.init(present: Set(texts.keys))
        for (attribute, text) in texts {
            switch attribute {
            case .start, .end:
                guard let value = KnobText.integer(text), value <= 100 else {
                    problems.append("\(location(attribute)): not a percentage 0-100: '\(KnobText.trim(text))'")
                    continue
                }
                if attribute == .start { startThreshold = value } else { endThreshold = value }
            case .behaviour, .types:
                let words = KnobText.words(text)
                // The current choice is the bracketed one; a single word without brackets is
                // the whole list (drivers that offer one mode print it bare).
                let current = Self.bracketed(text) ?? (words.count == 1 ? words[0] : nil)
                if current == nil {
                    problems.append("\(location(attribute)): no current choice in '\(KnobText.trim(text))'")
                }
                if attribute == .behaviour {
                    behaviour = current
                    behaviours = words
                } else {
                    chargeType = current
                    chargeTypes = words
                }
            }
        }
        problems.sort()
    }

    /// From a power_supply device's attributes, as the status reader has them; problems name
    /// the attribute, as the battery's other `error` entries do.
    public init(device: DeviceSnapshot) {
        var texts: [ChargeAttribute: String] = [:]
        for attribute in ChargeAttribute.allCases {
            if let text = device.string(attribute.rawValue) { texts[attribute] = text }
        }
        self.init(texts: texts, location: \.rawValue)
    }

    /// Reads every attribute the battery has; an unreadable one is a problem, not an error.
    public static func read(_ files: some ChargeControlFiles) -> ChargeControlState {
        var texts: [ChargeAttribute: String] = [:]
        var unreadable: [String] = []
        for attribute in ChargeAttribute.allCases {
            do throws(HardwareError) {
                if let text = try files.read(attribute) { texts[attribute] = text }
            } catch {
                unreadable.append("\(error)")
            }
        }
        var state = ChargeControlState(texts: texts, location: files.location(of:))
        state.problems = (state.problems + unreadable).sorted()
        return state
    }

    static func bracketed(_ text: String) -> String? {
        guard let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]") else { return nil }
        let word = text[text.index(after: open)..<close]
        return word.isEmpty || word.contains(" ") ? nil : String(word)
    }

    /// Whether `charge_behaviour` can hold the battery where it is (`inhibit-charge`), which
    /// is how a missing threshold is emulated.
    public var canInhibit: Bool { present.contains(.behaviour) && behaviours.contains("inhibit-charge") }

    /// What the battery offers, for `chargeLimit.supported`: `start` and `end` for the
    /// thresholds it has, then each `charge_behaviour` it offers.
    public var supported: [String] {
        var out: [String] = []
        if present.contains(.start) { out.append("start") }
        if present.contains(.end) { out.append("end") }
        return out + behaviours
    }
}
