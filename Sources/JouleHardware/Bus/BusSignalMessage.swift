/// A signal received through a match rule.
public struct BusSignalMessage: Sendable, Hashable {
    public var sender: String
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [BusValue]

    public init(sender: String, path: String, interface: String, member: String, arguments: [BusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}
