/// Eddystone-TLM (frame type 0x20), unencrypted version 0x00: battery voltage, temperature
/// (signed 8.8 fixed point), advertising PDU count and time since boot in 0.1 s units.
/// Beacons without a sensor send 0 mV and 0x8000 (−128 °C); both mean unknown, never a value.
public struct EddystoneTLM: Sendable, Hashable {
    public var batteryMv: Int?
    /// The raw signed 8.8 temperature; nil for 0x8000 (no sensor).
    public var temperatureRaw: Int16?
    public var advCount: UInt32
    /// Time since power-up in 0.1 s units, as sent.
    public var uptimeTenths: UInt32

    public init(batteryMv: Int?, temperatureRaw: Int16?, advCount: UInt32, uptimeTenths: UInt32) {
        self.batteryMv = batteryMv
        self.temperatureRaw = temperatureRaw
        self.advCount = advCount
        self.uptimeTenths = uptimeTenths
    }

    /// Degrees Celsius, or nil without a sensor.
    public var temperatureC: Double? { temperatureRaw.map { Double($0) / 256 } }
    /// Seconds since power-up, at 0.1 s resolution.
    public var uptimeS: Double { Double(uptimeTenths) / 10 }

    /// Decodes the frame that follows the 0xFEAA service UUID in a Service Data AD. The
    /// encrypted version (0x01) cannot be read without the key and is rejected.
    public init(frame data: UnsafeRawBufferPointer) throws(DecodeError) {
        var cursor = ByteCursor(data)
        guard try cursor.u8("Eddystone frame type") == 0x20 else { throw .mismatch("not an Eddystone-TLM frame") }
        let version = try cursor.u8("Eddystone-TLM version")
        guard version == 0 else { throw .invalid(field: "Eddystone-TLM version", offset: 1, value: Int(version)) }
        let battery = try cursor.u16be("Eddystone-TLM battery")
        let temperature = Int16(bitPattern: try cursor.u16be("Eddystone-TLM temperature"))
        advCount = try cursor.u32be("Eddystone-TLM advertising count")
        uptimeTenths = try cursor.u32be("Eddystone-TLM uptime")
        batteryMv = battery == 0 ? nil : Int(battery)
        temperatureRaw = temperature == Int16.min ? nil : temperature
    }

    public init(frame bytes: [UInt8]) throws(DecodeError) {
        self = try decoding(bytes) { (raw) throws(DecodeError) in try EddystoneTLM(frame: raw) }
    }
}
