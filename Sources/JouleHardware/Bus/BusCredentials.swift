/// What the bus daemon knows about a connection (GetConnectionCredentials). Authorisation
/// uses the uid (and polkit the bus name); the pid only tells whose child a process is.
public struct BusCredentials: Sendable, Hashable {
    public var busName: String
    public var uid: UInt32
    public var pid: UInt32

    public init(busName: String, uid: UInt32, pid: UInt32) {
        self.busName = busName
        self.uid = uid
        self.pid = pid
    }
}
