import JouleWire
import JouleHardware
import JouleEnergy

/// An entry into or exit from a region, at capture (or wall) time.
public struct RegionEvent: Sendable, Equatable {
    public enum Kind: String, Sendable { case enter, exit }
    public var timestampMicros: Int64
    public var kind: Kind
    public var region: BeaconRegion

    /// `{"timestamp","event","region","uuid","major","minor"}` (Eddystone-UID regions:
    /// `"namespace","instance"`): the region's identifiers, null where the region matches any
    /// value, as `CLBeaconRegion` reports them.
    public var jsonObject: JSONObject {
        var object: JSONObject = [
            "timestamp": .from(Double(timestampMicros) / 1_000_000),
            "event": .string(kind.rawValue),
            "region": .string(region.name),
        ]
        for (key, value) in region.identifierFields { object[key] = value }
        return object
    }

    /// The `beacons monitor --exec` environment: `JOULE_EVENT`, `JOULE_REGION`, `JOULE_UUID`,
    /// `JOULE_MAJOR`, `JOULE_MINOR` (Eddystone-UID: `JOULE_NAMESPACE`, `JOULE_INSTANCE`; empty
    /// when the region matches any) and `JOULE_TIMESTAMP`.
    public var hookEnvironment: HookEnvironment {
        var environment = HookEnvironment(
            event: kind.rawValue, timestamp: JSONValue.from(Double(timestampMicros) / 1_000_000).serialized)
        environment.set("region", .string(region.name))
        for (key, value) in region.identifierFields { environment.set(key, value) }
        return environment
    }
}
