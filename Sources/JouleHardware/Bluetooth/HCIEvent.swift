/// An HCI event packet (`[event code][parameter length][parameters]`), decoded into the few
/// kinds scanning needs. The length byte is checked against the bytes present, never trusted.
public enum HCIEvent: Sendable {
    case leAdvertisingReport(LEAdvertisingReportEvent)
    case leExtendedAdvertisingReport(LEExtendedAdvertisingReportEvent)
    /// Command Complete: the opcode and its return parameters (status first for most commands).
    case commandComplete(opcode: UInt16, returnParameters: [UInt8])
    case commandStatus(status: UInt8, opcode: UInt16)
    case hardwareError(code: UInt8)
    case other(code: UInt8)

    public static let commandCompleteCode: UInt8 = 0x0E
    public static let commandStatusCode: UInt8 = 0x0F
    public static let hardwareErrorCode: UInt8 = 0x10
    public static let leMetaCode: UInt8 = 0x3E

    /// Decodes an event packet without its H4 type byte.
    public init(bytes: [UInt8]) throws(DecodeError) {
        self = try decoding(bytes) { (raw) throws(DecodeError) -> HCIEvent in
            let (code, parameters, error) = try Self.split(raw)
            if let error, code != Self.leMetaCode { throw error }
            var cursor = ByteCursor(parameters)
            switch code {
            case Self.commandCompleteCode:
                _ = try cursor.u8("num_hci_command_packets")
                let opcode = try cursor.u16le("command opcode")
                return .commandComplete(opcode: opcode, returnParameters: Array(try cursor.take(cursor.remaining, "return parameters")))
            case Self.commandStatusCode:
                let status = try cursor.u8("status")
                _ = try cursor.u8("num_hci_command_packets")
                return .commandStatus(status: status, opcode: try cursor.u16le("command opcode"))
            case Self.hardwareErrorCode:
                return .hardwareError(code: try cursor.u8("hardware code"))
            case Self.leMetaCode:
                let subevent = try cursor.u8("LE subevent code")
                let rest = Array(try cursor.take(cursor.remaining, "LE subevent parameters"))
                switch subevent {
                case LEAdvertisingReportEvent.subeventCode:
                    var event = LEAdvertisingReportEvent(parameters: rest)
                    if event.error == nil, let error { event.error = error }
                    return .leAdvertisingReport(event)
                case LEExtendedAdvertisingReportEvent.subeventCode:
                    var event = LEExtendedAdvertisingReportEvent(parameters: rest)
                    if event.error == nil, let error { event.error = error }
                    return .leExtendedAdvertisingReport(event)
                default:
                    return .other(code: code)
                }
            default:
                return .other(code: code)
            }
        }
    }

    /// Splits an event into code and parameters. A length byte claiming more than is present
    /// yields the bytes that are there plus a truncation error; extra bytes are ignored.
    static func split(_ raw: UnsafeRawBufferPointer) throws(DecodeError)
        -> (code: UInt8, parameters: UnsafeRawBufferPointer, error: DecodeError?)
    {
        guard raw.count >= 2 else {
            throw .truncated(field: "HCI event header", offset: 0, needed: 2, available: raw.count)
        }
        let declared = Int(raw[1])
        let present = raw.count - 2
        let parameters = UnsafeRawBufferPointer(rebasing: raw[2..<(2 + Swift.min(declared, present))])
        let error: DecodeError? =
            declared > present
            ? .truncated(field: "HCI event parameters", offset: 2, needed: declared, available: present) : nil
        return (raw[0], parameters, error)
    }

    /// The allocation-free path: calls `body` for every advertising report (legacy or
    /// extended) in an event packet; other events are ignored. Returns the first problem met.
    @discardableResult
    public static func forEachAdvertisingReport(
        event raw: UnsafeRawBufferPointer, _ body: (AdvertisingReport, UnsafeRawBufferPointer) -> Void
    ) -> DecodeError? {
        let split: (code: UInt8, parameters: UnsafeRawBufferPointer, error: DecodeError?)
        do { split = try Self.split(raw) } catch { return error }
        guard split.code == leMetaCode, split.parameters.count >= 1 else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: split.parameters[1...])
        let reportError: DecodeError?
        switch split.parameters[0] {
        case LEAdvertisingReportEvent.subeventCode:
            reportError = LEAdvertisingReportEvent.forEachReport(parameters: rest, body)
        case LEExtendedAdvertisingReportEvent.subeventCode:
            reportError = LEExtendedAdvertisingReportEvent.forEachReport(parameters: rest, body)
        default:
            return nil
        }
        return reportError ?? split.error
    }
}
