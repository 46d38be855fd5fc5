import JouleWire
import JouleHardware
import JouleApps

/// Which supervised app each window's pid belongs to, and so each app's state (pure; the
/// process lookups are handed in): a pid inside an app's cgroup (its `joule run` cgroup or its
/// desktop scope) or, for an app under the process-tree fallback, the app's pid or a
/// descendant of it. An app takes the best state of its windows; a pid of no app moves nothing.
package enum ForegroundAssignment {
    /// One app as `Apps1.List` gives it.
    package struct App: Sendable, Hashable {
        package var name: String
        package var pid: Int32?
        package var cgroup: String?

        package init(name: String, pid: Int32?, cgroup: String?) {
            self.name = name
            self.pid = pid
            self.cgroup = cgroup
        }

        /// From a `joule app list --json` object; nil without a name.
        package init?(json: JSONValue) {
            guard let name = json["app"]?.stringValue else { return nil }
            self.init(name: name, pid: json["pid"]?.intValue.map { Int32(clamping: $0) }, cgroup: json["cgroup"]?.stringValue)
        }
    }

    /// A parent chain longer than this is a loop in a bad /proc, not a process tree.
    static let maximumDepth = 64

    package static func states(
        windows: [Int32: AppLifecycleState], apps: [App], cgroup: (Int32) -> String?, parent: (Int32) -> Int32?
    ) -> [String: AppLifecycleState] {
        var result: [String: AppLifecycleState] = [:]
        for (pid, state) in windows {
            guard let app = owner(of: pid, apps: apps, cgroup: cgroup, parent: parent) else { continue }
            if let existing = result[app], DesktopAppStates.rank(existing) >= DesktopAppStates.rank(state) { continue }
            result[app] = state
        }
        return result
    }

    static func owner(of pid: Int32, apps: [App], cgroup: (Int32) -> String?, parent: (Int32) -> Int32?) -> String? {
        if let path = cgroup(pid).map(CgroupPath.init) {
            // The deepest cgroup that holds the pid: a joule run app inside a scope is its own.
            let holders = apps.compactMap { app in app.cgroup.map { (app.name, CgroupPath($0)) } }.filter { $0.1.contains(path) }
            if let best = holders.max(by: { $0.1.components.count < $1.1.components.count }) { return best.0 }
        }
        var current: Int32? = pid
        for _ in 0..<maximumDepth {
            guard let this = current, this > 1 else { return nil }
            if let app = apps.first(where: { $0.cgroup == nil && $0.pid == this }) { return app.name }
            current = parent(this)
        }
        return nil
    }

    /// The request that moves an app to `state`.
    package static func request(for state: AppLifecycleState) -> AppLifecycleRequest? {
        switch state {
        case .active: .foreground
        case .inactive: .inactive
        case .background: .background
        case .suspended, .terminated: nil
        }
    }
}
