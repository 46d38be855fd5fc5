#if canImport(Glibc)
import Glibc
#endif

/// The one place where the hardware layer talks rtnetlink: a NETLINK_ROUTE socket subscribed to
/// link and route multicast groups, so the kernel tells us when an interface or a route comes
/// or goes instead of anyone polling /proc/net/route.
enum NetlinkGateway {
    /// RTMGRP_LINK, RTMGRP_IPV4_ROUTE, RTMGRP_IPV6_ROUTE from linux/rtnetlink.h, which Swift's
    /// Glibc module does not import.
    static let linkGroup: UInt32 = 0x1
    static let ipv4RouteGroup: UInt32 = 0x40
    static let ipv6RouteGroup: UInt32 = 0x400
    /// SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK (asm-generic values, as on x86 and arm): Glibc's
    /// `__socket_type` enum does not import in every module configuration of this package.
    private static let socketType: Int32 = 3 | 0o2000000 | 0o4000

    /// `struct sockaddr_nl` (linux/netlink.h, not imported either): family, pad, port id,
    /// groups; 12 bytes with the same layout in Swift.
    private struct NetlinkAddress {
        var family: UInt16
        var pad: UInt16 = 0
        var portID: UInt32 = 0
        var groups: UInt32
    }

    /// Opens the socket, subscribes to `groups`, calls `ready`, then sleeps in poll(2) until the
    /// socket has messages (`onChange` once per burst, whatever they say) or `stopFD` turns
    /// readable; `onWake` counts every return from poll(2) but the last. Blocks: run it on a thread of its own. A receive-buffer overrun (ENOBUFS)
    /// means messages were lost, which still means something changed.
    static func runRouteMonitor(
        groups: UInt32 = linkGroup | ipv4RouteGroup | ipv6RouteGroup, stopFD: Int32, ready: () -> Void,
        onWake: () -> Void = {}, onChange: () -> Void
    ) throws(HardwareError) {
        let fd = socket(AF_NETLINK, socketType, 0)  // NETLINK_ROUTE
        guard fd >= 0 else { throw HardwareError(operation: "socket(AF_NETLINK)", path: "netlink:route", errno: .current) }
        defer { Glibc.close(fd) }
        var address = NetlinkAddress(family: UInt16(AF_NETLINK), groups: groups)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<NetlinkAddress>.size))
            }
        }
        guard bound == 0 else { throw HardwareError(operation: "bind(AF_NETLINK)", path: "netlink:route", errno: .current) }
        ready()

        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = poll(&fds, nfds_t(fds.count), -1)
            if count < 0 {
                if errno == EINTR { continue }
                throw HardwareError(operation: "poll", path: "netlink:route", errno: .current)
            }
            if fds[1].revents != 0 { return }
            onWake()
            if fds[0].revents & Int16(POLLNVAL) != 0 {
                throw HardwareError(operation: "poll", path: "netlink:route", detail: "netlink socket closed")
            }
            // Drain the burst (an interface going down sends a link message and one per route).
            // POLLERR is an overrun: the recv below returns ENOBUFS once and clears it.
            var changed = false
            while true {
                let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n > 0 { changed = true; continue }
                if n == 0 { break }
                if errno == EINTR { continue }
                if errno == ENOBUFS { changed = true; continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                throw HardwareError(operation: "recv", path: "netlink:route", errno: .current)
            }
            if changed { onChange() }
        }
    }
}
