#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An errno value with its symbolic name, so messages say `ENODATA`, not `61`. In the gateway
/// because it reads the C library's errno, names and messages.
public struct Errno: Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int32
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current errno.
    public static var current: Errno { Errno(errno) }

    public static let noEntry = Errno(ENOENT)
    public static let permissionDenied = Errno(EACCES)
    public static let notPermitted = Errno(EPERM)
    public static let noData = Errno(ENODATA)
    public static let tryAgain = Errno(EAGAIN)
    public static let ioError = Errno(EIO)
    public static let noSuchProcess = Errno(ESRCH)
    public static let isDirectory = Errno(EISDIR)
    public static let notDirectory = Errno(ENOTDIR)
    public static let invalid = Errno(EINVAL)
    public static let noDevice = Errno(ENODEV)
    public static let addressFamilyNotSupported = Errno(EAFNOSUPPORT)
    public static let busy = Errno(EBUSY)
    public static let interrupted = Errno(EINTR)
    public static let canceled = Errno(ECANCELED)

    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", ESRCH: "ESRCH", EINTR: "EINTR", EIO: "EIO",
        ENXIO: "ENXIO", EBADF: "EBADF", EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES",
        EBUSY: "EBUSY", EEXIST: "EEXIST", ENODEV: "ENODEV", ENOTDIR: "ENOTDIR",
        EISDIR: "EISDIR", EINVAL: "EINVAL", ENOSPC: "ENOSPC", EROFS: "EROFS",
        ENODATA: "ENODATA", ETIMEDOUT: "ETIMEDOUT", EAFNOSUPPORT: "EAFNOSUPPORT",
        ENETDOWN: "ENETDOWN", EOPNOTSUPP: "EOPNOTSUPP", ELOOP: "ELOOP",
        ENAMETOOLONG: "ENAMETOOLONG",
        ENOSYS: "ENOSYS", ECHILD: "ECHILD", ENOEXEC: "ENOEXEC",
        ECONNREFUSED: "ECONNREFUSED", ECONNRESET: "ECONNRESET", ECONNABORTED: "ECONNABORTED",
        EHOSTUNREACH: "EHOSTUNREACH", EHOSTDOWN: "EHOSTDOWN", ENETUNREACH: "ENETUNREACH",
        EADDRNOTAVAIL: "EADDRNOTAVAIL", EPIPE: "EPIPE",
    ]

    /// `ENODATA`, or `errno 1234` for values without a known name.
    public var name: String { Self.names[rawValue] ?? "errno \(rawValue)" }

    /// The C library's message, e.g. "No data available".
    public var message: String { String(cString: strerror(rawValue)) }

    /// `No data available (ENODATA)`.
    public var description: String { "\(message) (\(name))" }

    /// Whether a connect(2) failing with it means no connection was made to the peer at all
    /// (refused, unreachable, timed out), as opposed to one that broke later.
    public var isConnectFailure: Bool {
        [ECONNREFUSED, EHOSTUNREACH, EHOSTDOWN, ENETUNREACH, ENETDOWN, ETIMEDOUT, EADDRNOTAVAIL].contains(rawValue)
    }

    /// `connection refused (ECONNREFUSED)`: the description to follow a colon mid-sentence.
    public var clause: String {
        guard let first = message.first else { return "(\(name))" }
        return first.lowercased() + message.dropFirst() + " (\(name))"
    }
}
