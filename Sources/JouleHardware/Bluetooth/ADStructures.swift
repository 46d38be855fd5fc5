/// Advertising Data: a run of `[length][type][data…]` structures (Core spec Vol 3 Part C §11).
/// A length of 0 ends the significant part. A length running past the end ends the parse of
/// this report only, and is reported, so one bad advert never hides the rest of an event.
public enum ADStructures {
    public static let flags: UInt8 = 0x01
    public static let txPowerLevel: UInt8 = 0x0A
    public static let serviceData16: UInt8 = 0x16
    public static let manufacturerSpecific: UInt8 = 0xFF

    /// Calls `body(type, data)` for each complete structure until it returns false.
    /// Returns the error that stopped the parse early, or nil when the data ended cleanly.
    @discardableResult
    public static func forEach(
        in data: UnsafeRawBufferPointer, _ body: (UInt8, UnsafeRawBufferPointer) -> Bool
    ) -> DecodeError? {
        var offset = 0
        while offset < data.count {
            let length = Int(data[offset])
            if length == 0 { return nil }
            guard length <= data.count - offset - 1 else {
                return .truncated(
                    field: "AD structure", offset: offset, needed: length + 1, available: data.count - offset)
            }
            let type = data[offset + 1]
            let body_ = UnsafeRawBufferPointer(rebasing: data[(offset + 2)..<(offset + 1 + length)])
            if !body(type, body_) { return nil }
            offset += 1 + length
        }
        return nil
    }

    /// The structures as (type, data) pairs, for tests and tools; stops like `forEach`.
    public static func parse(_ bytes: [UInt8]) -> (structures: [(type: UInt8, data: [UInt8])], error: DecodeError?) {
        var result: [(type: UInt8, data: [UInt8])] = []
        let error = bytes.withUnsafeBytes { raw in
            forEach(in: raw) { type, data in
                result.append((type, Array(data)))
                return true
            }
        }
        return (result, error)
    }
}
