import JouleHardware
import Testing

@Suite struct EWMHSnapshotTests {
    static let hidden: UInt32 = 300
    static let other: UInt32 = 301

    @Test func activeHiddenAndDesktopsFollowTheProperties() {
        let root = EWMHSnapshot.Root(activeWindow: [0x200], clientList: [0x100, 0x200, 0x300, 0x400], currentDesktop: [1])
        let windows: [UInt32: EWMHSnapshot.Window] = [
            0x100: .init(wmPID: [11], wmState: [Self.other, Self.hidden], wmDesktop: [1]),
            0x200: .init(wmPID: [22], wmState: [], wmDesktop: [1]),
            0x300: .init(wmPID: [33], wmState: nil, wmDesktop: [0]),
            0x400: .init(wmPID: [44], wmState: [Self.other], wmDesktop: [EWMHSnapshot.allDesktops]),
        ]
        let snapshot = EWMHSnapshot.decode(root: root, windows: windows, hiddenAtom: Self.hidden)
        #expect(
            snapshot.windows == [
                DesktopWindow(id: 0x100, pid: 11, isFocused: false, isHidden: true, isOnCurrentWorkspace: true),
                DesktopWindow(id: 0x200, pid: 22, isFocused: true, isHidden: false, isOnCurrentWorkspace: true),
                DesktopWindow(id: 0x300, pid: 33, isFocused: false, isHidden: false, isOnCurrentWorkspace: false),
                DesktopWindow(id: 0x400, pid: 44, isFocused: false, isHidden: false, isOnCurrentWorkspace: true),
            ])
        #expect(snapshot.focused?.pid == 22)
    }

    /// ICCCM's WM_STATE: Withdrawn while still a client is i3's scratchpad (whose
    /// _NET_WM_DESKTOP says "all desktops"); Iconic (openbox's for other desktops too), Normal,
    /// a short or missing value change nothing.
    @Test func icccmWithdrawnIsHidden() {
        let root = EWMHSnapshot.Root(activeWindow: nil, clientList: [1, 2, 3, 4, 5], currentDesktop: [0])
        let windows: [UInt32: EWMHSnapshot.Window] = [
            1: .init(wmPID: [1], wmState: nil, wmDesktop: [0], icccmState: [3, 0]),
            2: .init(wmPID: [2], wmState: [], wmDesktop: [EWMHSnapshot.allDesktops], icccmState: [0, 0]),
            3: .init(wmPID: [3], wmState: nil, wmDesktop: [0], icccmState: [1, 0]),
            4: .init(wmPID: [4], wmState: nil, wmDesktop: [0], icccmState: []),
            5: .init(wmPID: [5], wmState: nil, wmDesktop: [0]),
        ]
        let snapshot = EWMHSnapshot.decode(root: root, windows: windows, hiddenAtom: Self.hidden)
        #expect(snapshot.windows.map(\.isHidden) == [false, true, false, false, false])
        #expect(snapshot.windows.map(\.isVisible) == [true, false, true, true, true])
    }

    @Test func thePidComesFromNetWMPidElseXResElseIsUnknown() {
        let root = EWMHSnapshot.Root(activeWindow: nil, clientList: [1, 2, 3, 4, 5], currentDesktop: nil)
        let windows: [UInt32: EWMHSnapshot.Window] = [
            1: .init(wmPID: [7], wmState: nil, wmDesktop: nil, clientPID: 8),
            2: .init(wmPID: nil, wmState: nil, wmDesktop: nil, clientPID: 8),
            3: .init(wmPID: nil, wmState: nil, wmDesktop: nil),
            // Garbage: 0 and a value past Int32.max are no pids.
            4: .init(wmPID: [0], wmState: nil, wmDesktop: nil, clientPID: 9),
            5: .init(wmPID: [0xFFFF_FFF0], wmState: nil, wmDesktop: nil),
        ]
        let snapshot = EWMHSnapshot.decode(root: root, windows: windows, hiddenAtom: Self.hidden)
        #expect(snapshot.windows.map(\.pid) == [7, 8, nil, 9, nil])
        // Without _NET_CURRENT_DESKTOP every window is on the shown desktop; without an active window none is focused.
        #expect(snapshot.windows.allSatisfy { $0.isOnCurrentWorkspace && !$0.isFocused })
    }

    @Test func missingPropertiesGoneWindowsAndDuplicatesAreTolerated() {
        #expect(
            EWMHSnapshot.decode(root: .init(activeWindow: nil, clientList: nil, currentDesktop: nil), windows: [:], hiddenAtom: 1)
                .windows.isEmpty)
        // 0x2 vanished between the client list and its properties; 0 and a repeat are skipped.
        let root = EWMHSnapshot.Root(activeWindow: [0x2], clientList: [0x1, 0, 0x2, 0x1], currentDesktop: [0])
        let snapshot = EWMHSnapshot.decode(
            root: root, windows: [0x1: .init(wmPID: [5], wmState: nil, wmDesktop: nil)], hiddenAtom: 1)
        #expect(snapshot.windows == [DesktopWindow(id: 1, pid: 5, isFocused: false, isHidden: false, isOnCurrentWorkspace: true)])
    }
}
