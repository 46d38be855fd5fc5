import JouleHardware

/// The `org.joule.Transfers1` object of `joule daemon` (issue 13): Add, Cancel, Get, List and
/// ListSession, and the TransferChanged / TransferFinished signals.
public final class TransfersService: Sendable {
    /// The daemon owns this name beside `org.joule.Energy1`.
    public static let busName = "org.joule.Transfers1"
    public static let objectPath = "/org/joule/Transfers1"
    public static let interfaceName = "org.joule.Transfers1"
    /// Error names beyond the standard InvalidArgs and AccessDenied.
    public static let notFoundError = "org.joule.Transfers1.Error.NotFound"
    public static let destinationBusyError = "org.joule.Transfers1.Error.DestinationBusy"
    public static let alreadyFinishedError = "org.joule.Transfers1.Error.AlreadyFinished"
}
