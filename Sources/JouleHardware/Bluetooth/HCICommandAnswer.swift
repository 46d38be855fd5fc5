/// The controller's answer to a command: a Command Complete (status first in the return
/// parameters) or a Command Status event. An answer too short to hold its status byte is a
/// protocol error, never taken for success.
public enum HCICommandAnswer: Sendable, Equatable {
    case status(opcode: UInt16, UInt8)
    /// A Command Complete or Command Status that does not decode; `opcode` when it was readable.
    case malformed(opcode: UInt16?, DecodeError)

    /// The answer in an event packet (without its H4 type byte), or nil for any other event.
    public init?(event bytes: [UInt8]) {
        guard bytes.count >= 1, bytes[0] == HCIEvent.commandCompleteCode || bytes[0] == HCIEvent.commandStatusCode else {
            return nil
        }
        let result: Result<HCICommandAnswer, DecodeError> = bytes.withUnsafeBytes { raw in
            do throws(DecodeError) { return .success(try Self.decode(raw)) } catch { return .failure(error) }
        }
        switch result {
        case .success(let answer): self = answer
        case .failure(let error): self = .malformed(opcode: Self.opcode(in: bytes), error)
        }
    }

    private static func decode(_ raw: UnsafeRawBufferPointer) throws(DecodeError) -> HCICommandAnswer {
        let (code, parameters, truncation) = try HCIEvent.split(raw)
        if let truncation { throw truncation }
        var cursor = ByteCursor(parameters)
        if code == HCIEvent.commandCompleteCode {
            _ = try cursor.u8("num_hci_command_packets")
            let opcode = try cursor.u16le("command opcode")
            return .status(opcode: opcode, try cursor.u8("Command Complete status"))
        }
        let status = try cursor.u8("Command Status status")
        _ = try cursor.u8("num_hci_command_packets")
        return .status(opcode: try cursor.u16le("command opcode"), status)
    }

    /// The opcode of a damaged answer, if its bytes reach that far.
    private static func opcode(in bytes: [UInt8]) -> UInt16? {
        let offset = bytes[0] == HCIEvent.commandCompleteCode ? 3 : 4
        guard bytes.count >= offset + 2 else { return nil }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }
}
