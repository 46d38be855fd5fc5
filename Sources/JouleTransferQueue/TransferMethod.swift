/// How a transfer moves its bytes: a GET downloads to the destination, a PUT or POST uploads
/// the upload source's contents.
public enum TransferMethod: String, Sendable, Hashable, CaseIterable {
    case get = "GET"
    case put = "PUT"
    case post = "POST"

    public var isUpload: Bool { self != .get }
}
