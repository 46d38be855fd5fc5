/// One entry of the daemon config's `apps:`: a desktop app, by its application ID, that the
/// daemon manages from the moment its scope appears (`apps: [{id: org.mozilla.firefox,
/// grace: 10, backgroundBudget: 30, cpuLimit: 50, suspend: true}]`). An app not listed is
/// never touched.
package struct DesktopAppRule: Sendable, Hashable {
    package var id: String
    package var configuration: AppLifecycleMachine.Configuration

    package init(id: String, configuration: AppLifecycleMachine.Configuration = AppLifecycleMachine.Configuration()) {
        self.id = id
        self.configuration = configuration
    }
}
