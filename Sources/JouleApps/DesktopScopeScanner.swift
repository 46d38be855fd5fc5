import JouleHardware

/// One desktop app's unit as it runs now: its name decoded, its cgroup, and the user it
/// belongs to.
package struct DesktopScope: Sendable, Hashable {
    package var unit: DesktopAppUnit
    /// The cgroup path, as /proc/PID/cgroup writes it.
    package var cgroup: String
    package var uid: UInt32
}

/// Finds the desktop apps' scopes (and services) in every user's `app.slice`:
/// `/user.slice/user-UID.slice/user@UID.service/app.slice/…`, also inside the slices a
/// desktop nests there (`app-gnome-firefox.slice/`, `app-org.gnome.Terminal.slice/`). Reads
/// cgroupfs under the freezer's mount, so a fixture tree stands in for it.
package struct DesktopScopeScanner: Sendable {
    package let freezer: CgroupFreezer
    /// How deep under `app.slice` slices are followed.
    static let sliceDepth = 3

    package init(freezer: CgroupFreezer) { self.freezer = freezer }

    /// Each user's `app.slice` cgroup with its uid, for users with a user manager now.
    package func appSlices() -> [(cgroup: String, uid: UInt32)] {
        freezer.children("/user.slice").compactMap { user in
            let name = CgroupPath(user).components.last ?? ""
            guard name.hasPrefix("user-"), name.hasSuffix(".slice"), let uid = UInt32(name.dropFirst(5).dropLast(6)) else { return nil }
            let slice = CgroupPath(user).appending("user@\(uid).service").appending("app.slice").description
            return freezer.exists(slice) ? (slice, uid) : nil
        }
    }

    /// Every desktop app unit in the users' `app.slice`s, in path order.
    package func scan() -> [DesktopScope] {
        var found: [DesktopScope] = []
        for (slice, uid) in appSlices() {
            var pending = [(slice, 0)]
            while let (cgroup, depth) = pending.popLast() {
                for child in freezer.children(cgroup) {
                    let name = CgroupPath(child).components.last ?? ""
                    if let unit = DesktopAppUnit(unit: name) {
                        found.append(DesktopScope(unit: unit, cgroup: child, uid: uid))
                    } else if name.hasSuffix(".slice"), depth < Self.sliceDepth {
                        pending.append((child, depth + 1))
                    }
                }
            }
        }
        return found.sorted { $0.cgroup < $1.cgroup }
    }
}
