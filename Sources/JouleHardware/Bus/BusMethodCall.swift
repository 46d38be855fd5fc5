/// An incoming method call, copied out of its message for a handler.
public struct BusMethodCall: Sendable, Hashable {
    /// The caller's unique bus name (e.g. `:1.42`): what polkit authorises, never a pid.
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
