/// One D-Bus value, as it travels in a message: the basic types Joule uses, and the containers
/// that polkit and power-profiles-daemon take (arrays, dictionaries, structs, variants).
public indirect enum BusValue: Sendable, Hashable, CustomStringConvertible {
    case bool(Bool)
    case byte(UInt8)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A Unix file descriptor (`h`). Read from a message it is a duplicate the receiver owns
    /// and must close (logind's inhibitor lock); appended, sd-bus sends its own duplicate.
    case unixFD(Int32)
    /// `a…`: the element signature is kept so that an empty array still has a type.
    case array(elementSignature: String, [BusValue])
    /// `(…)`
    case structure([BusValue])
    /// `{kv}`, only inside an array.
    case dictEntry(BusValue, BusValue)
    /// `v`
    case variant(BusValue)

    /// The D-Bus type signature of this value, e.g. `b`, `a{sv}`, `(bba{ss})`.
    public var signature: String {
        switch self {
        case .bool: "b"
        case .byte: "y"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element, _): "a" + element
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .variant: "v"
        }
    }

    /// `a{sv}` from a dictionary of variants, the shape of polkit's details and subjects.
    public static func variantDictionary(_ entries: [(String, BusValue)]) -> BusValue {
        .array(elementSignature: "{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    /// `a{ss}`
    public static func stringDictionary(_ entries: [(String, String)]) -> BusValue {
        .array(elementSignature: "{ss}", entries.map { .dictEntry(.string($0.0), .string($0.1)) })
    }

    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var stringValue: String? {
        switch self {
        case .string(let v), .objectPath(let v), .signature(let v): v
        default: nil
        }
    }
    public var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
    public var uint32Value: UInt32? { if case .uint32(let v) = self { v } else { nil } }
    /// The entries of an `a{s…}` dictionary (e.g. `a{sv}` properties, `a{sa{sv}}` interfaces),
    /// values unwrapped from their variants; nil for anything else.
    public var stringKeyedEntries: [(String, BusValue)]? {
        guard case .array(_, let entries) = unwrapped else { return nil }
        var out: [(String, BusValue)] = []
        for entry in entries {
            guard case .dictEntry(let key, let value) = entry, let name = key.stringValue else { return nil }
            out.append((name, value.unwrapped))
        }
        return out
    }

    /// The value inside a variant, or the value itself.
    public var unwrapped: BusValue { if case .variant(let v) = self { v.unwrapped } else { self } }

    public var description: String {
        switch self {
        case .bool(let v): "\(v)"
        case .byte(let v): "\(v)"
        case .int16(let v): "\(v)"
        case .uint16(let v): "\(v)"
        case .int32(let v): "\(v)"
        case .uint32(let v): "\(v)"
        case .int64(let v): "\(v)"
        case .uint64(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v), .objectPath(let v), .signature(let v): "\"\(v)\""
        case .unixFD(let v): "fd \(v)"
        case .array(_, let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .structure(let fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        case .dictEntry(let key, let value): "\(key): \(value)"
        case .variant(let v): "<\(v)>"
        }
    }
}
