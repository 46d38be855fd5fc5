import JouleHardware
import JouleWire

/// iOS's app states from what the desktop shows (issue 35), pure:
/// - the pid owning the focused window is `active`;
/// - a pid with a visible but unfocused window is `inactive`;
/// - a pid whose windows are all minimised, hidden or on another workspace is `background`;
/// - a locked or idle session makes every app at least `inactive` (`active` becomes `inactive`).
/// A pid with several windows takes the best state of them. Windows without a pid map to no
/// app. A focused window that is hidden or on another workspace (a race in the window
/// manager's updates) counts as hidden: nobody can be using what is not shown.
package enum DesktopAppStates {
    package static func states(of snapshot: DesktopSnapshot, sessionLockedOrIdle: Bool) -> [Int32: AppLifecycleState] {
        var states: [Int32: AppLifecycleState] = [:]
        for window in snapshot.windows {
            guard let pid = window.pid else { continue }
            var state: AppLifecycleState = !window.isVisible ? .background : window.isFocused ? .active : .inactive
            if sessionLockedOrIdle, state == .active { state = .inactive }
            if let existing = states[pid], rank(existing) >= rank(state) { continue }
            states[pid] = state
        }
        return states
    }

    /// How much of the user's attention a state has: a pid or an app takes its best.
    package static func rank(_ state: AppLifecycleState) -> Int {
        switch state {
        case .active: 3
        case .inactive: 2
        case .background: 1
        case .suspended, .terminated: 0
        }
    }
}
