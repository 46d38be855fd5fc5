import JouleHardware

/// One app handed to the supervisor: who it is, its limits, and how it is suspended.
public struct AppRegistration: Sendable {
    public var name: String
    /// The app's main process (the command `joule run` started).
    public var identity: ProcessIdentity
    /// The user the app runs as: only that user (or root) may move it.
    public var uid: UInt32
    public var configuration: AppLifecycleMachine.Configuration
    public var actuator: any AppActuator
    /// Where to listen for the app (`JOULE_LIFECYCLE_SOCKET`); nil: no socket.
    public var socketPath: String?

    public init(
        name: String, identity: ProcessIdentity, uid: UInt32, configuration: AppLifecycleMachine.Configuration,
        actuator: any AppActuator, socketPath: String?
    ) {
        self.name = name
        self.identity = identity
        self.uid = uid
        self.configuration = configuration
        self.actuator = actuator
        self.socketPath = socketPath
    }
}
