import CJouleShims

/// SHA-256 through the system libcrypto's EVP interface (OpenSSL 3 on Debian 12), which the
/// C shim loads on first use so that commands that never hash never map it. The only caller
/// of those shims; `SHA256Hasher` is the domain type.
enum DigestGateway {
    typealias Context = UnsafeMutableRawPointer

    /// A fresh context initialised for SHA-256, or why there is none (libcrypto missing or
    /// out of memory).
    static func makeSHA256() throws(HardwareError) -> Context {
        var reason: UnsafePointer<CChar>?
        guard let context = joule_sha256_new(&reason) else {
            throw HardwareError(operation: "sha256", path: "libcrypto", detail: reason.map { String(cString: $0) } ?? "unknown failure")
        }
        return context
    }

    static func update(_ context: Context, _ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = joule_sha256_update(context, base, bytes.count)
    }

    /// The 32-byte digest, or nil when libcrypto failed; the context is spent afterwards.
    static func finish(_ context: Context) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 32)
        let status = digest.withUnsafeMutableBufferPointer { joule_sha256_final(context, $0.baseAddress) }
        return status == 0 ? digest : nil
    }

    static func free(_ context: Context) { joule_sha256_free(context) }
}
