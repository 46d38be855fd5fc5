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

    /// `{"timestamp","region","uuid","major","minor","rssi","accuracyM","proximity"}`.
    public var jsonObject: JSONObject {
        [
            "timestamp": .from(Double(timestampMicros) / 1_000_000),
            "region": .string(region),
            "uuid": .string(key.uuid.description),
            "major": .int(Int(key.major)),
            "minor": .int(Int(key.minor)),
            "rssi": .from(rssi, places: 2),
            "accuracyM": .from(accuracyM, places: 2),
            "proximity": .string(proximity.rawValue),
        ]
    }
}
