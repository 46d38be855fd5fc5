/// The names of Joule's four D-Bus services: the daemon exports them and every client calls
/// them, so they live below both. The contracts are `data/org.joule.*.xml`.
public enum EnergyBus {
    public static let busName = "org.joule.Energy1"
    public static let objectPath = "/org/joule/Energy1"
    public static let interfaceName = "org.joule.Energy1"
    /// The polkit action that authorises `SetLowPowerMode` on the system bus
    /// (`dist/polkit/org.joule.Energy1.policy`).
    public static let setLowPowerModeAction = "org.joule.Energy1.set-low-power-mode"
    /// The polkit action that authorises `SetChargeLimit` and `ChargeFullOnce`.
    public static let setChargeLimitAction = "org.joule.Energy1.set-charge-limit"
}

public enum AppsBus {
    public static let busName = "org.joule.Apps1"
    public static let objectPath = "/org/joule/Apps1"
    public static let interfaceName = "org.joule.Apps1"
    public static let unknownAppError = "org.joule.Apps1.Error.UnknownApp"
    public static let nameInUseError = "org.joule.Apps1.Error.NameInUse"
}

public enum TransfersBus {
    /// The daemon owns this name beside `org.joule.Energy1`.
    public static let busName = "org.joule.Transfers1"
    public static let objectPath = "/org/joule/Transfers1"
    public static let interfaceName = "org.joule.Transfers1"
    /// Error names beyond the standard InvalidArgs and AccessDenied.
    public static let notFoundError = "org.joule.Transfers1.Error.NotFound"
    public static let destinationBusyError = "org.joule.Transfers1.Error.DestinationBusy"
    public static let alreadyFinishedError = "org.joule.Transfers1.Error.AlreadyFinished"
}

public enum LocationBus {
    /// The daemon owns this name beside `org.joule.Energy1`.
    public static let busName = "org.joule.Location1"
    public static let objectPath = "/org/joule/Location1"
    public static let interfaceName = "org.joule.Location1"
    /// The polkit action every call needs on the system bus: a location is personal, so only
    /// an active local session's user (`dist/polkit/org.joule.Energy1.policy`).
    public static let useAction = "org.joule.Location1.use"
    /// `RequestLocation` ended with no fix at all.
    public static let noFixError = "org.joule.Location1.Error.NoFix"
    /// `Stop` of a handle the caller does not hold.
    public static let unknownHandleError = "org.joule.Location1.Error.UnknownHandle"
}

extension AppLifecycleRequest {
    /// The `org.joule.Apps1` method that asks for this request: `Foreground` for `foreground`.
    package var busMember: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}
