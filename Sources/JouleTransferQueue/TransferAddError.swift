/// Why `Add` refused a request; each reads as a sentence naming the key at fault.
public enum TransferAddError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A bad value (URL, scheme, path, method, sha256, …) or a missing directory.
    case invalid(String)
    /// The owner may not write the destination's directory or read the upload.
    case accessDenied(String)
    /// The queue refused it (a live transfer already writes that destination) or failed.
    case store(TransferStoreError)

    public var description: String {
        switch self {
        case .invalid(let message), .accessDenied(let message): message
        case .store(let error): "\(error)"
        }
    }
}
