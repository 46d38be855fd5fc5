import JouleHardware

/// A beacon region: a proximity UUID with optional major and minor, like `CLBeaconRegion`.
/// Written `NAME=UUID[:MAJOR[:MINOR]]`, or a bare `UUID[:MAJOR[:MINOR]]` named by its text.
public struct BeaconRegion: Sendable, Hashable {
    public var name: String
    public var uuid: BeaconUUID
    public var major: UInt16?
    public var minor: UInt16?

    public init(name: String, uuid: BeaconUUID, major: UInt16? = nil, minor: UInt16? = nil) {
        self.name = name
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    public struct SpecError: Error, Sendable, CustomStringConvertible {
        public var spec: String
        public var reason: String
        public var description: String {
            "bad region \"\(spec)\": \(reason) (expected NAME=UUID[:MAJOR[:MINOR]] or UUID, e.g. office=E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1)"
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
        guard (1...3).contains(parts.count) else { throw SpecError(spec: spec, reason: "too many ':' fields") }
        guard let uuid = BeaconUUID(String(parts[0])) else {
            throw SpecError(spec: spec, reason: "\"\(parts[0])\" is not a UUID (8-4-4-4-12 hex digits)")
        }
        func number(_ text: Substring, _ what: String) throws(SpecError) -> UInt16 {
            guard let value = UInt16(text) else {
                throw SpecError(spec: spec, reason: "\(what) \"\(text)\" is not a number from 0 to 65535")
            }
            return value
        }
        self.uuid = uuid
        major = parts.count > 1 ? try number(parts[1], "major") : nil
        minor = parts.count > 2 ? try number(parts[2], "minor") : nil
        self.name = name ?? ([uuid.description] + parts.dropFirst().map(String.init)).joined(separator: ":")
    }

    public func matches(uuid: BeaconUUID, major: UInt16, minor: UInt16) -> Bool {
        uuid == self.uuid && (self.major == nil || self.major == major) && (self.minor == nil || self.minor == minor)
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
