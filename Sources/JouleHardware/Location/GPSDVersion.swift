import JouleWire

/// gpsd's banner, the `VERSION` report it sends first on every connection (gpsd_json(5)):
/// `{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}`.
/// Pure: a line in, the banner or nil for anything else.
public struct GPSDVersion: Sendable, Hashable, CustomStringConvertible {
    public var release: String
    public var protocolMajor: Int
    public var protocolMinor: Int

    public init(release: String, protocolMajor: Int, protocolMinor: Int) {
        self.release = release
        self.protocolMajor = protocolMajor
        self.protocolMinor = protocolMinor
    }

    public static func decode(line: String) -> GPSDVersion? {
        guard let value = try? JSONParser.parse(line), value["class"]?.stringValue == "VERSION",
            let release = value["release"]?.stringValue, let major = value["proto_major"]?.intValue
        else { return nil }
        return GPSDVersion(release: release, protocolMajor: major, protocolMinor: value["proto_minor"]?.intValue ?? 0)
    }

    /// `gpsd 3.22 (protocol 3.14)`.
    public var description: String { "gpsd \(release) (protocol \(protocolMajor).\(protocolMinor))" }
}
