import JouleWire
import JouleHardware
import JouleTransferQueue
import JouleSession
import Testing

struct TransferSignalDecoderTests {
    func signal(
        _ member: String, _ arguments: [BusValue], interface: String = TransfersBus.interfaceName, path: String = TransfersBus.objectPath
    ) -> BusSignalMessage {
        BusSignalMessage(sender: ":1.7", path: path, interface: interface, member: member, arguments: arguments)
    }

    @Test func theQueuesSignalsBecomeEvents() {
        #expect(TransferSignalDecoder.decode(signal("TransferChanged", [.string("a1"), .string("running")]))
            == .changed(id: "a1", state: "running"))
        let finished = TransferSignalDecoder.decode(signal("TransferFinished", [.string("a1"), .string("failed"), .string("/home/u/x.bin")]))
        #expect(finished == .finished(id: "a1", state: "failed", path: "/home/u/x.bin"))
        #expect(finished?.isFinal == true)
        #expect(TransferSignalDecoder.decode(signal("TransferChanged", [.string("a1"), .string("retrying")]))?.isFinal == false)
    }

    @Test func anotherObjectsOrAMalformedSignalIsNone() {
        #expect(TransferSignalDecoder.decode(signal("TransferChanged", [.string("a1"), .string("running")], interface: EnergyBus.interfaceName)) == nil)
        #expect(TransferSignalDecoder.decode(signal("TransferChanged", [.string("a1"), .string("running")], path: "/org/joule/Other")) == nil)
        #expect(TransferSignalDecoder.decode(signal("TransferFinished", [.string("a1"), .string("completed")])) == nil, "one argument short")
        #expect(TransferSignalDecoder.decode(signal("TransferChanged", [.string("a1"), .uint32(3)])) == nil, "a state that is no string")
        #expect(TransferSignalDecoder.decode(signal("TransferAdded", [.string("a1"), .string("waiting")])) == nil)
        #expect(TransferSignalDecoder.rule.contains("sender='\(TransfersBus.busName)'"))
    }
}
