import AsyncHTTPClient
import Foundation
import JouleHardware
import NIOCore
import NIOPosix

/// One sentence for an error AsyncHTTPClient or NIO threw during an attempt, naming the host
/// and port and the errno by name: `cannot connect to 127.0.0.1:9: connection refused
/// (ECONNREFUSED)`. The one place that words network failures, for downloads and uploads alike
/// (NIO's own text, `connection reset (error set): Connection refused (errno: 111)`, says
/// neither where nor which errno).
enum NetworkFailure {
    static func sentence(_ error: any Error, url: String) -> String {
        let peer = authority(of: url)
        switch error {
        case let failure as NIOConnectionError:
            if let dns = failure.dnsAError ?? failure.dnsAAAAError { return "cannot resolve \(failure.host): \(dns)" }
            let place = "\(failure.host):\(failure.port)"
            if let first = failure.connectionErrors.first { return connecting(first.error, place) }
            return "cannot connect to \(place): no address to try"
        case let io as IOError where !Errno(io.errnoCode).isConnectFailure:
            return "connection to \(peer) failed: \(Errno(io.errnoCode).clause)"
        case is IOError, ChannelError.connectTimeout:
            return connecting(error, peer)
        case let client as HTTPClientError where client == .connectTimeout:
            return "cannot connect to \(peer): no answer in time (ETIMEDOUT)"
        case let client as HTTPClientError where client == .remoteConnectionClosed:
            return "\(peer) closed the connection before the response ended"
        case let client as HTTPClientError where client == .readTimeout:
            return "\(peer) sent nothing in time"
        default:
            return "request to \(peer) failed: \(error)"
        }
    }

    /// A connection error of one address of a host.
    private static func connecting(_ error: any Error, _ place: String) -> String {
        if let io = error as? IOError { return "cannot connect to \(place): \(Errno(io.errnoCode).clause)" }
        if case ChannelError.connectTimeout(let span) = error {
            return "cannot connect to \(place): no answer within \(span.nanoseconds / 1_000_000_000) s (ETIMEDOUT)"
        }
        return "cannot connect to \(place): \(error)"
    }

    /// `host:port` of an http(s) URL, the port filled in from the scheme; the URL itself when
    /// it has no host.
    static func authority(of url: String) -> String {
        guard let parsed = URL(string: url), let host = parsed.host, !host.isEmpty else { return url }
        let port = parsed.port ?? (parsed.scheme?.lowercased() == "https" ? 443 : 80)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
