import JouleHardware
import Testing

@Suite struct I3IPCFrameReaderTests {
    @Test func messagesRoundTripInPieces() throws {
        let first = I3IPCMessage(type: I3IPCMessage.getTree, payload: Array("{}".utf8))
        let second = I3IPCMessage(type: I3IPCMessage.windowEvent, payload: Array(#"{"change":"focus"}"#.utf8))
        #expect(first.encoded.prefix(14) == [0x69, 0x33, 0x2D, 0x69, 0x70, 0x63, 2, 0, 0, 0, 4, 0, 0, 0])
        var reader = I3IPCFrameReader()
        var received: [I3IPCMessage] = []
        for byte in first.encoded + second.encoded {
            reader.append([byte])
            if let message = try reader.next() { received.append(message) }
        }
        #expect(received == [first, second])
        #expect(received.map(\.isEvent) == [false, true])
        try reader.finish()
    }

    @Test func wrongMagicIsSeenAtTheFirstWrongByte() {
        var reader = I3IPCFrameReader()
        reader.append(Array("i3-".utf8))
        #expect((try? reader.next()) == .some(nil))
        reader.append(Array("HTTP".utf8))
        #expect(throws: I3IPCError.badMagic(Array("i3-HTT".utf8))) { try reader.next() }
    }

    @Test func aHugeLengthIsRefusedBeforeBuffering() {
        var reader = I3IPCFrameReader()
        reader.append(Array("i3-ipc".utf8) + [0xFF, 0xFF, 0xFF, 0x7F, 4, 0, 0, 0])
        #expect(throws: I3IPCError.payloadTooLong(0x7FFF_FFFF)) { try reader.next() }
    }

    @Test func aTruncatedMessageAtTheEndIsAnError() throws {
        var reader = I3IPCFrameReader()
        reader.append(Array("i3-ipc".utf8) + [10, 0])
        #expect(try reader.next() == nil)
        #expect(throws: I3IPCError.truncated(bytes: 8)) { try reader.finish() }
    }
}
