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
}
