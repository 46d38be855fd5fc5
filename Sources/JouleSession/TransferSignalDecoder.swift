import JouleWire
import JouleHardware
import JouleTransferQueue

/// org.joule.Transfers1's signals as `TransferEvent`s: `TransferChanged(s id, s state)` and
/// `TransferFinished(s id, s state, s path)`. Pure; another object's or interface's signal, or
/// one off the contract, is none. The signals name no owner: whose transfer it is, the agent
/// asks the daemon (`Get` answers NotFound for another user's).
public enum TransferSignalDecoder {
    /// The match rule for everything decoded here.
    public static let rule = "type='signal',sender='\(TransfersBus.busName)',path='\(TransfersBus.objectPath)',"
        + "interface='\(TransfersBus.interfaceName)'"

    public static func decode(_ signal: BusSignalMessage) -> TransferEvent? {
        guard signal.path == TransfersBus.objectPath, signal.interface == TransfersBus.interfaceName else { return nil }
        return TransferEvent(member: signal.member, arguments: signal.arguments)
    }
}
