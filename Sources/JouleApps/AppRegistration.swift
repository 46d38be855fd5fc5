import JouleHardware

/// One app handed to the supervisor: who it is, its limits, and how it is suspended.
package struct AppRegistration: Sendable {
    package var name: String
    /// The app's main process (the command `joule run` started).
    package var identity: ProcessIdentity
    /// The user the app runs as: only that user (or root) may move it.
    package var uid: UInt32
    package var configuration: AppLifecycleMachine.Configuration
    package var actuator: any AppActuator
    /// Where to listen for the app (`JOULE_LIFECYCLE_SOCKET`); nil: no socket.
    package var socketPath: String?
    /// `run` (started by `joule run`) or `scope` (a desktop app's scope, from the config's `apps:`).
    package var source: String

    package init(
        name: String, identity: ProcessIdentity, uid: UInt32, configuration: AppLifecycleMachine.Configuration,
        actuator: any AppActuator, socketPath: String?, source: String = "run"
    ) {
        self.source = source
        self.name = name
        self.identity = identity
        self.uid = uid
        self.configuration = configuration
        self.actuator = actuator
        self.socketPath = socketPath
    }
}
