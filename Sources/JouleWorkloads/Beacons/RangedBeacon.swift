import JouleWire
import JouleHardware

/// One beacon's ranging result for one interval, like `CLBeacon`.
public struct RangedBeacon: Sendable, Equatable {
    public var timestampMicros: Int64
    public var region: String
    public var key: BeaconKey
    /// Filtered RSSI in dBm, nil with no RSSI in the window.
    public var rssi: Double?
    /// Estimated distance in metres, nil when unknown.
    public var accuracyM: Double?
    public var proximity: Proximity

    /// `{"timestamp","region","uuid","major","minor","rssi","accuracyM","proximity"}`
    /// (Eddystone-UID: `"namespace","instance"` in place of the UUID, major and minor).
    public var jsonObject: JSONObject {
        var object: JSONObject = ["timestamp": .from(Double(timestampMicros) / 1_000_000), "region": .string(region)]
        for (name, value) in key.jsonFields { object[name] = value }
        object["rssi"] = .from(rssi, places: 2)
        object["accuracyM"] = .from(accuracyM, places: 2)
        object["proximity"] = .string(proximity.rawValue)
        return object
    }
}
