import Foundation

/// Where a 307/308 sends an upload: the `Location` resolved against the request's URL. Pure;
/// nil when there is no Location or it does not resolve to an http(s) URL with a host, so a
/// redirect can never lead to `file:`, `ftp:` or a relative nowhere.
public struct RedirectTarget: Sendable, Hashable {
    /// The absolute URL to send the request to next.
    public let url: String
    /// Whether scheme, host and port are those of the request: credentials go only there.
    public let sameOrigin: Bool

    public init?(location: String?, from base: String) {
        guard let location, let baseURL = URL(string: base),
              let target = URL(string: location, relativeTo: baseURL)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = target.host, !host.isEmpty
        else { return nil }
        url = target.absoluteString
        sameOrigin = scheme == baseURL.scheme?.lowercased() && host.lowercased() == baseURL.host?.lowercased()
            && target.port == baseURL.port
    }
}
