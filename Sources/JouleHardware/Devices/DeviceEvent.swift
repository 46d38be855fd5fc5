/// A uevent: a device was added, removed or changed. Carries names only; the engine re-reads
/// the subsystem, so an event and a poll always see the device the same way.
public struct DeviceEvent: Sendable, Hashable {
    /// `add`, `remove`, `change`, `bind`, `unbind`, `move`, `online`, `offline`.
    public var action: String
    public var subsystem: String
    public var sysname: String
    public var syspath: String

    public init(action: String, subsystem: String, sysname: String, syspath: String) {
        self.action = action
        self.subsystem = subsystem
        self.sysname = sysname
        self.syspath = syspath
    }
}
