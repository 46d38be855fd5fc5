/// The owner of a process, from the `Uid:` line of /proc/PID/status
/// (real, effective, saved set, filesystem).
public struct ProcessStatus: Sendable, Hashable {
    public var realUID: UInt32
    public var effectiveUID: UInt32
    public var savedUID: UInt32

    public init(realUID: UInt32, effectiveUID: UInt32, savedUID: UInt32) {
        self.realUID = realUID
        self.effectiveUID = effectiveUID
        self.savedUID = savedUID
    }

    /// Decodes the `Uid:` line; nil when it is missing or malformed.
    public static func parse(_ text: String) -> ProcessStatus? {
        for line in text.split(separator: "\n") where line.hasPrefix("Uid:") {
            let ids = line.dropFirst(4).split(whereSeparator: { $0 == "\t" || $0 == " " }).map { UInt32($0) }
            guard ids.count >= 3, let real = ids[0], let effective = ids[1], let saved = ids[2] else {
                return nil
            }
            return ProcessStatus(realUID: real, effectiveUID: effective, savedUID: saved)
        }
        return nil
    }

    /// `voluntary_ctxt_switches` from status bytes, without allocating (the sampler reads it for
    /// every process); nil when the line is missing or not a number. Anchored on a line start,
    /// since `nonvoluntary_ctxt_switches:` ends with the same words.
    public static func voluntarySwitches(in raw: UnsafeRawBufferPointer) -> UInt64? {
        let key: StaticString = "\nvoluntary_ctxt_switches:"
        let keyLength = key.utf8CodeUnitCount
        guard raw.count > keyLength else { return nil }
        let keyBytes = UnsafeRawBufferPointer(start: key.utf8Start, count: keyLength)
        var start = 0
        while start + keyLength <= raw.count {
            guard raw[start] == 0x0A, raw[start + 1] == 0x76 else {  // "\nv"
                start += 1
                continue
            }
            var matched = true
            for offset in 2..<keyLength where raw[start + offset] != keyBytes[offset] {
                matched = false
                break
            }
            guard matched else {
                start += 1
                continue
            }
            var index = start + keyLength
            while index < raw.count, raw[index] == 0x09 || raw[index] == 0x20 { index += 1 }
            var end = index
            while end < raw.count, raw[end] >= 0x30, raw[end] <= 0x39 { end += 1 }
            return try? ProcessStatFields.number(raw, index..<end, field: 0)
        }
        return nil
    }
}
