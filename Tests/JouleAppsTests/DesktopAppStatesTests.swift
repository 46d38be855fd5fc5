import JouleHardware
import JouleWire
import Testing

@testable import JouleApps

@Suite struct DesktopAppStatesTests {
    private func window(
        _ id: UInt64, pid: Int32?, focused: Bool = false, hidden: Bool = false, onCurrent: Bool = true
    ) -> DesktopWindow {
        DesktopWindow(id: id, pid: pid, isFocused: focused, isHidden: hidden, isOnCurrentWorkspace: onCurrent)
    }

    @Test func focusedIsActiveVisibleIsInactiveHiddenOrElsewhereIsBackground() {
        let snapshot = DesktopSnapshot(windows: [
            window(1, pid: 10, focused: true), window(2, pid: 20), window(3, pid: 30, hidden: true),
            window(4, pid: 40, onCurrent: false),
        ])
        #expect(
            DesktopAppStates.states(of: snapshot, sessionLockedOrIdle: false)
                == [10: .active, 20: .inactive, 30: .background, 40: .background])
    }

    @Test func lockedOrIdleSessionMakesTheActiveAppInactiveAndLeavesTheRest() {
        let snapshot = DesktopSnapshot(windows: [
            window(1, pid: 10, focused: true), window(2, pid: 20), window(3, pid: 30, hidden: true),
        ])
        #expect(
            DesktopAppStates.states(of: snapshot, sessionLockedOrIdle: true)
                == [10: .inactive, 20: .inactive, 30: .background])
    }

    @Test func aPidWithSeveralWindowsTakesTheBestState() {
        let snapshot = DesktopSnapshot(windows: [
            window(1, pid: 10, hidden: true), window(2, pid: 10, focused: true), window(3, pid: 10),
            window(4, pid: 20, onCurrent: false), window(5, pid: 20), window(6, pid: 20, hidden: true),
            window(7, pid: 30, hidden: true), window(8, pid: 30, onCurrent: false),
        ])
        #expect(
            DesktopAppStates.states(of: snapshot, sessionLockedOrIdle: false)
                == [10: .active, 20: .inactive, 30: .background])
    }

    @Test func windowsWithoutAPidMapToNoApp() {
        let snapshot = DesktopSnapshot(windows: [window(1, pid: nil, focused: true), window(2, pid: 20)])
        #expect(DesktopAppStates.states(of: snapshot, sessionLockedOrIdle: false) == [20: .inactive])
        #expect(DesktopAppStates.states(of: DesktopSnapshot(windows: []), sessionLockedOrIdle: true).isEmpty)
    }

    @Test func aFocusedWindowThatIsNotShownIsBackground() {
        let snapshot = DesktopSnapshot(windows: [
            window(1, pid: 10, focused: true, hidden: true), window(2, pid: 20, focused: true, onCurrent: false),
        ])
        #expect(DesktopAppStates.states(of: snapshot, sessionLockedOrIdle: false) == [10: .background, 20: .background])
    }
}
