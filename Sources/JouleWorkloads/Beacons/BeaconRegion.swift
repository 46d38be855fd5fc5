import JouleWire
import JouleHardware

/// A beacon region: a proximity UUID with optional major and minor, like `CLBeaconRegion`, or an
/// Eddystone-UID namespace with an optional instance, like the AltBeacon library's `Region`.
/// Written `NAME=UUID[:MAJOR[:MINOR]]` or `NAME=NAMESPACE[:INSTANCE]` (20 and 12 hex digits), or
/// without `NAME=`, named by its text.
public struct BeaconRegion: Sendable, Hashable {
    public enum Identity: Sendable, Hashable {
        case proximity(uuid: BeaconUUID, major: UInt16?, minor: UInt16?)
        case eddystone(namespace: BeaconIdentifier, instance: BeaconIdentifier?)
    }

    public static let namespaceBytes = 10
    public static let instanceBytes = 6

    public var name: String
    public var identity: Identity

    public init(name: String, identity: Identity) {
        self.name = name
        self.identity = identity
    }

    public init(name: String, uuid: BeaconUUID, major: UInt16? = nil, minor: UInt16? = nil) {
        self.init(name: name, identity: .proximity(uuid: uuid, major: major, minor: minor))
    }

    public struct SpecError: Error, Sendable, CustomStringConvertible {
        public var spec: String
        public var reason: String
        public var description: String {
            "bad region \"\(spec)\": \(reason) (expected NAME=UUID[:MAJOR[:MINOR]], NAME=NAMESPACE[:INSTANCE] for Eddystone-UID, or either without NAME=, e.g. office=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1 or door=edd1ebeac04e5defa017:0000000000a1)"
        }
    }

    public init(spec: String) throws(SpecError) {
        var name: String?
        var body = Substring(spec)
        if let eq = spec.firstIndex(of: "=") {
            name = String(spec[..<eq])
            body = spec[spec.index(after: eq)...]
            guard let name, !name.isEmpty else { throw SpecError(spec: spec, reason: "empty name") }
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        if let uuid = BeaconUUID(String(parts[0])) {
            guard parts.count <= 3 else { throw SpecError(spec: spec, reason: "too many ':' fields") }
            func number(_ text: Substring, _ what: String) throws(SpecError) -> UInt16 {
                guard let value = UInt16(text) else {
                    throw SpecError(spec: spec, reason: "\(what) \"\(text)\" is not a number from 0 to 65535")
                }
                return value
            }
            identity = .proximity(
                uuid: uuid, major: parts.count > 1 ? try number(parts[1], "major") : nil,
                minor: parts.count > 2 ? try number(parts[2], "minor") : nil)
            self.name = name ?? ([uuid.description] + parts.dropFirst().map(String.init)).joined(separator: ":")
        } else if let namespace = BeaconIdentifier(hex: String(parts[0]), count: Self.namespaceBytes) {
            guard parts.count <= 2 else { throw SpecError(spec: spec, reason: "too many ':' fields for an Eddystone-UID region") }
            var instance: BeaconIdentifier?
            if parts.count == 2 {
                guard let parsed = BeaconIdentifier(hex: String(parts[1]), count: Self.instanceBytes) else {
                    throw SpecError(spec: spec, reason: "instance \"\(parts[1])\" is not 12 hex digits")
                }
                instance = parsed
            }
            identity = .eddystone(namespace: namespace, instance: instance)
            self.name = name ?? ([namespace.description] + (instance.map { [$0.description] } ?? [])).joined(separator: ":")
        } else {
            throw SpecError(
                spec: spec,
                reason: "\"\(parts[0])\" is neither a UUID (8-4-4-4-12 hex digits) nor an Eddystone namespace (20 hex digits)")
        }
    }

    public func matches(_ key: BeaconKey) -> Bool {
        switch (identity, key) {
        case (.proximity(let uuid, let major, let minor), .proximity(let keyUUID, let keyMajor, let keyMinor)):
            uuid == keyUUID && (major == nil || major == keyMajor) && (minor == nil || minor == keyMinor)
        case (.eddystone(let namespace, let instance), .eddystone(let keyNamespace, let keyInstance)):
            namespace == keyNamespace && (instance == nil || instance == keyInstance)
        default: false
        }
    }

    /// The region's identifiers for JSON lines and hook environments, nil where it matches any
    /// value: `uuid`, `major`, `minor`, or `namespace`, `instance`.
    public var identifierFields: [(String, JSONValue)] {
        switch identity {
        case .proximity(let uuid, let major, let minor):
            [("uuid", .string(uuid.description)), ("major", .from(major.map(Int.init))), ("minor", .from(minor.map(Int.init)))]
        case .eddystone(let namespace, let instance):
            [("namespace", .string(namespace.description)), ("instance", .from(instance?.description))]
        }
    }

    /// `UUID[ major[/minor]]` or `namespace[ instance]`, for text output.
    public var identifierText: String {
        switch identity {
        case .proximity(let uuid, let major, let minor):
            ([uuid.description] + [major.map(String.init), minor.map(String.init)].compactMap { $0 }).joined(separator: " ")
        case .eddystone(let namespace, let instance):
            ([namespace.description] + (instance.map { [$0.description] } ?? [])).joined(separator: " ")
        }
    }

    /// Parses several specs, rejecting duplicate names.
    public static func parse(_ specs: [String]) throws(SpecError) -> [BeaconRegion] {
        try distinct(specs.map { spec in (spec, Result { () throws(SpecError) in try BeaconRegion(spec: spec) }) })
    }

    /// Regions parsed one by one, in order: the first bad spec's error, or a name used twice.
    public static func distinct(_ parsed: [(spec: String, region: Result<BeaconRegion, SpecError>)]) throws(SpecError)
        -> [BeaconRegion]
    {
        var regions: [BeaconRegion] = []
        for (spec, result) in parsed {
            let region = try result.get()
            guard !regions.contains(where: { $0.name == region.name }) else {
                throw SpecError(spec: spec, reason: "region name \"\(region.name)\" is used twice")
            }
            regions.append(region)
        }
        return regions
    }
}
