/// Eddystone-TLM (frame type 0x20), unencrypted version 0x00: battery voltage, temperature
/// (signed 8.8 fixed point), advertising PDU count and time since boot in 0.1 s units.
/// Beacons without a sensor send 0 mV and 0x8000 (−128 °C); both mean unknown, never a value.
public struct EddystoneTLM: Sendable, Hashable {
    public var batteryMv: Int?
    public var temperatureC: Double?
    public var advCount: UInt32
    /// Seconds since power-up, at 0.1 s resolution.
    public var uptimeS: Double

    public init(batteryMv: Int?, temperatureC: Double?, advCount: UInt32, uptimeS: Double) {
        self.batteryMv = batteryMv
        self.temperatureC = temperatureC
        self.advCount = advCount
        self.uptimeS = uptimeS
    }

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
        let tenths = try cursor.u32be("Eddystone-TLM uptime")
        batteryMv = battery == 0 ? nil : Int(battery)
        temperatureC = temperature == Int16.min ? nil : Double(temperature) / 256
        uptimeS = Double(tenths) / 10
    }

    public init(frame bytes: [UInt8]) throws(DecodeError) {
        self = try decoding(bytes) { (raw) throws(DecodeError) in try EddystoneTLM(frame: raw) }
    }
}
