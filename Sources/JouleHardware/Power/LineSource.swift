/// A source of line power from the power_supply class: mains adapter, USB port, UPS output.
public struct LineSource: Sendable, Hashable {
    /// Kernel name, e.g. `AC`, `ADP1`, `ucsi-source-psy-USBC000:001`.
    public var name: String
    public var syspath: String
    /// The kernel's type as written: `Mains`, `USB`, `USB_C`, `USB_PD`, `UPS`, `Wireless`...
    public var kind: String
    /// `online`; nil when the attribute is missing or unreadable.
    public var online: Bool?
    /// Why `online` is unknown when its read failed or its text is garbage.
    public var error: String?

    public init(name: String, syspath: String, kind: String, online: Bool?, error: String? = nil) {
        self.error = error
        self.name = name
        self.syspath = syspath
        self.kind = kind
        self.online = online
    }
}
