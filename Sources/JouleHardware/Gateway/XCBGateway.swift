import CXCB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one place where the hardware layer calls libxcb (and its XRes extension).
///
/// The connection is made, used and closed on the calling thread (`X11FocusSource`'s own), so
/// no xcb pointer outlives it or crosses threads: only `DesktopSnapshot` values leave.
/// Failures are `HardwareError`s whose path is the display.
enum XCBGateway {
    private struct Atoms {
        var activeWindow: xcb_atom_t = 0
        var clientList: xcb_atom_t = 0
        var currentDesktop: xcb_atom_t = 0
        var supportingWMCheck: xcb_atom_t = 0
        var wmPID: xcb_atom_t = 0
        var wmState: xcb_atom_t = 0
        var wmStateHidden: xcb_atom_t = 0
        var wmDesktop: xcb_atom_t = 0
        /// ICCCM's WM_STATE (also its type).
        var icccmState: xcb_atom_t = 0
    }

    /// Connects to `display`, checks that an EWMH window manager runs, selects PropertyNotify on
    /// the root window (and later on each client), calls `ready`, and then sends a snapshot at
    /// once and after every change that alters it, sleeping in poll(2) on the connection and
    /// `stopFD` in between (no timer); `onWake` counts each return from poll(2) for the
    /// connection. Returns when `stopFD` becomes readable; throws when the connection breaks.
    static func runFocusLoop(
        display: String, stopFD: Int32, onWake: () -> Void, ready: () -> Void, onSnapshot: (DesktopSnapshot) -> Void
    ) throws(HardwareError) {
        var screenNumber: Int32 = 0
        // xcb_connect never returns NULL: a failed connection is one in an error state.
        guard let connection = xcb_connect(display, &screenNumber) else {
            throw HardwareError(operation: "xcb_connect", path: display, detail: "no connection")
        }
        defer { xcb_disconnect(connection) }
        let status = xcb_connection_has_error(connection)
        guard status == 0 else {
            throw HardwareError(operation: "xcb_connect", path: display, detail: connectionError(status))
        }
        var screens = xcb_setup_roots_iterator(xcb_get_setup(connection))
        for _ in 0..<max(0, screenNumber) where screens.rem > 0 { xcb_screen_next(&screens) }
        guard screens.rem > 0, let screen = screens.data else {
            throw HardwareError(operation: "xcb_setup_roots_iterator", path: display, detail: "no screen \(screenNumber)")
        }
        let root = screen.pointee.root
        let atoms = try internAtoms(connection, display: display)
        select(connection, root)
        // Openbox, xfwm4, KWin, Mutter… all set this; without it there is no _NET_ACTIVE_WINDOW to follow.
        guard let check = property(connection, root, atoms.supportingWMCheck, XCB_ATOM_WINDOW.rawValue)?.first, check != 0
        else {
            throw HardwareError(
                operation: "_NET_SUPPORTING_WM_CHECK", path: display,
                detail: "no EWMH window manager (the root window has no _NET_SUPPORTING_WM_CHECK)")
        }
        let hasXRes = xresPresent(connection)
        ready()

        var selected: Set<xcb_window_t> = [root]
        var last: DesktopSnapshot?
        var dirty = true
        let fd = xcb_get_file_descriptor(connection)
        while true {
            if dirty {
                dirty = false
                let snapshot = readSnapshot(connection, root: root, atoms: atoms, hasXRes: hasXRes, selected: &selected)
                // A server that died mid-read answered nothing: that is no empty desktop.
                let error = xcb_connection_has_error(connection)
                if error != 0 {
                    throw HardwareError(operation: "connection", path: display, detail: connectionError(error))
                }
                if snapshot != last {
                    onSnapshot(snapshot)
                    last = snapshot
                }
                // Events that arrived while the replies were read are already in xcb's queue.
                while let event = xcb_poll_for_queued_event(connection) {
                    if changes(event, root: root, atoms: atoms) { dirty = true }
                    free(event)
                }
                if dirty { continue }
            }
            xcb_flush(connection)
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                throw HardwareError(operation: "poll", path: display, errno: .current)
            }
            if fds[1].revents != 0 { return }
            onWake()
            while let event = xcb_poll_for_event(connection) {
                if changes(event, root: root, atoms: atoms) { dirty = true }
                free(event)
            }
            let error = xcb_connection_has_error(connection)
            if error != 0 {
                throw HardwareError(operation: "connection", path: display, detail: connectionError(error))
            }
        }
    }

    /// Whether a PropertyNotify names a property the snapshot is made of. Errors (a BadWindow
    /// for a client that vanished before its event mask was set) and other events are ignored.
    private static func changes(_ event: UnsafeMutablePointer<xcb_generic_event_t>, root: xcb_window_t, atoms: Atoms) -> Bool {
        guard event.pointee.response_type & 0x7F == XCB_PROPERTY_NOTIFY else { return false }
        let notify = UnsafeRawPointer(event).loadUnaligned(as: xcb_property_notify_event_t.self)
        if notify.window == root {
            return [atoms.activeWindow, atoms.clientList, atoms.currentDesktop].contains(notify.atom)
        }
        return [atoms.wmState, atoms.wmDesktop, atoms.wmPID, atoms.icccmState].contains(notify.atom)
    }

    /// Reads the root's and every client's properties, pipelined (all requests sent, then the
    /// replies collected), selecting PropertyNotify on clients not seen before first, so that
    /// a change after the read is never missed.
    private static func readSnapshot(
        _ connection: OpaquePointer, root: xcb_window_t, atoms: Atoms, hasXRes: Bool, selected: inout Set<xcb_window_t>
    ) -> DesktopSnapshot {
        let cardinal = XCB_ATOM_CARDINAL.rawValue, window = XCB_ATOM_WINDOW.rawValue, atom = XCB_ATOM_ATOM.rawValue
        let active = request(connection, root, atoms.activeWindow, window)
        let clients = request(connection, root, atoms.clientList, window)
        let desktop = request(connection, root, atoms.currentDesktop, cardinal)
        let rootProperties = EWMHSnapshot.Root(
            activeWindow: values(connection, active, window), clientList: values(connection, clients, window),
            currentDesktop: values(connection, desktop, cardinal))
        let ids = rootProperties.clientList ?? []
        for id in ids where !selected.contains(id) { select(connection, id) }
        selected = Set(ids).union([root])
        let cookies = ids.map {
            (request(connection, $0, atoms.wmPID, cardinal), request(connection, $0, atoms.wmState, atom),
             request(connection, $0, atoms.wmDesktop, cardinal), request(connection, $0, atoms.icccmState, atoms.icccmState))
        }
        var windows: [UInt32: EWMHSnapshot.Window] = [:]
        for (id, cookie) in zip(ids, cookies) {
            windows[id] = EWMHSnapshot.Window(
                wmPID: values(connection, cookie.0, cardinal), wmState: values(connection, cookie.1, atom),
                wmDesktop: values(connection, cookie.2, cardinal), icccmState: values(connection, cookie.3, atoms.icccmState))
        }
        if hasXRes {
            let missing = ids.filter { EWMHSnapshot.pid(windows[$0]!) == nil }
            let queries = missing.map { queryClientPID(connection, $0) }
            for (id, query) in zip(missing, queries) { windows[id]?.clientPID = clientPID(connection, query) }
        }
        return EWMHSnapshot.decode(root: rootProperties, windows: windows, hiddenAtom: atoms.wmStateHidden)
    }

    private static func select(_ connection: OpaquePointer, _ window: xcb_window_t) {
        var mask = XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue
        xcb_change_window_attributes(connection, window, XCB_CW_EVENT_MASK.rawValue, &mask)
    }

    private static func request(_ connection: OpaquePointer, _ window: xcb_window_t, _ property: xcb_atom_t, _ type: xcb_atom_t)
        -> xcb_get_property_cookie_t
    {
        // 1024 items: a client list of 1024 windows; longer ones are read truncated.
        xcb_get_property(connection, 0, window, property, type, 0, 1024)
    }

    /// The property's format-32 items; nil when it is missing, of another type or format, or
    /// the window is gone (the error is freed by xcb when no error pointer is passed).
    private static func values(_ connection: OpaquePointer, _ cookie: xcb_get_property_cookie_t, _ type: xcb_atom_t) -> [UInt32]? {
        guard let reply = xcb_get_property_reply(connection, cookie, nil) else { return nil }
        defer { free(reply) }
        guard reply.pointee.type == type, reply.pointee.format == 32, let value = xcb_get_property_value(reply) else { return nil }
        let count = Int(xcb_get_property_value_length(reply)) / 4
        return (0..<count).map { UnsafeRawPointer(value).loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
    }

    private static func property(_ connection: OpaquePointer, _ window: xcb_window_t, _ property: xcb_atom_t, _ type: xcb_atom_t)
        -> [UInt32]?
    {
        values(connection, request(connection, window, property, type), type)
    }

    private static func internAtoms(_ connection: OpaquePointer, display: String) throws(HardwareError) -> Atoms {
        let names = [
            "_NET_ACTIVE_WINDOW", "_NET_CLIENT_LIST", "_NET_CURRENT_DESKTOP", "_NET_SUPPORTING_WM_CHECK", "_NET_WM_PID",
            "_NET_WM_STATE", "_NET_WM_STATE_HIDDEN", "_NET_WM_DESKTOP", "WM_STATE",
        ]
        let cookies = names.map { name in xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name) }
        var found: [xcb_atom_t] = []
        for (name, cookie) in zip(names, cookies) {
            guard let reply = xcb_intern_atom_reply(connection, cookie, nil) else {
                throw HardwareError(operation: "xcb_intern_atom", path: display, detail: name)
            }
            found.append(reply.pointee.atom)
            free(reply)
        }
        return Atoms(
            activeWindow: found[0], clientList: found[1], currentDesktop: found[2], supportingWMCheck: found[3],
            wmPID: found[4], wmState: found[5], wmStateHidden: found[6], wmDesktop: found[7], icccmState: found[8])
    }

    /// Whether the server has X-Resource 1.2 (QueryClientIds, the pid of a client's connection).
    private static func xresPresent(_ connection: OpaquePointer) -> Bool {
        let name = "X-Resource"
        guard let ext = xcb_query_extension_reply(connection, xcb_query_extension(connection, UInt16(name.utf8.count), name), nil)
        else { return false }
        let present = ext.pointee.present != 0
        free(ext)
        guard present, let version = xcb_res_query_version_reply(connection, xcb_res_query_version(connection, 1, 2), nil)
        else { return false }
        defer { free(version) }
        return version.pointee.server_major > 1 || (version.pointee.server_major == 1 && version.pointee.server_minor >= 2)
    }

    private static func queryClientPID(_ connection: OpaquePointer, _ window: xcb_window_t) -> xcb_res_query_client_ids_cookie_t {
        var spec = xcb_res_client_id_spec_t(client: window, mask: XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID.rawValue)
        return xcb_res_query_client_ids(connection, 1, &spec)
    }

    /// The pid of the local client that created the window; nil for a remote client or a gone window.
    private static func clientPID(_ connection: OpaquePointer, _ cookie: xcb_res_query_client_ids_cookie_t) -> Int32? {
        guard let reply = xcb_res_query_client_ids_reply(connection, cookie, nil) else { return nil }
        defer { free(reply) }
        var ids = xcb_res_query_client_ids_ids_iterator(reply)
        while ids.rem > 0, let id = ids.data {
            if id.pointee.spec.mask & XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID.rawValue != 0,
                xcb_res_client_id_value_value_length(id) >= 1, let value = xcb_res_client_id_value_value(id)
            {
                let pid = value.pointee
                return pid > 0 && pid <= UInt32(Int32.max) ? Int32(pid) : nil
            }
            xcb_res_client_id_value_next(&ids)
        }
        return nil
    }

    /// xcb_connection_has_error's codes (xcb.h), in words.
    static func connectionError(_ code: Int32) -> String {
        switch code {
        case 1: "connection failed or broke (the X server went away?)"
        case 2: "an extension is not supported"
        case 3: "out of memory"
        case 4: "request too long"
        case 5: "cannot parse the display name"
        case 6: "no such screen"
        case 7: "file descriptor passing failed"
        default: "error \(code)"
        }
    }
}
