import JouleHardware

/// An entry into or exit from a region, at capture (or wall) time.
public struct RegionEvent: Sendable, Equatable {
    public enum Kind: String, Sendable { case enter, exit }
    public var timestampMicros: Int64
    public var kind: Kind
    public var region: BeaconRegion

    /// `{"timestamp","event","region","uuid","major","minor"}`: the region's identifiers, null
    /// where the region matches any value, as `CLBeaconRegion` reports them.
    public var jsonObject: JSONObject {
        [
            "timestamp": .from(Double(timestampMicros) / 1_000_000),
            "event": .string(kind.rawValue),
            "region": .string(region.name),
            "uuid": .string(region.uuid.description),
            "major": .from(region.major.map(Int.init)),
            "minor": .from(region.minor.map(Int.init)),
        ]
    }

    /// The `beacons monitor --exec` environment: `JOULE_EVENT`, `JOULE_REGION`, `JOULE_UUID`,
    /// `JOULE_MAJOR`, `JOULE_MINOR` (empty when the region matches any) and `JOULE_TIMESTAMP`.
    public var hookEnvironment: HookEnvironment {
        var environment = HookEnvironment(
            event: kind.rawValue, timestamp: JSONValue.from(Double(timestampMicros) / 1_000_000).serialized)
        environment.set("region", .string(region.name))
        environment.set("uuid", .string(region.uuid.description))
        environment.set("major", .from(region.major.map(Int.init)))
        environment.set("minor", .from(region.minor.map(Int.init)))
        return environment
    }
}
