import CCrypto

/// SHA-256 through the system libcrypto's EVP interface (OpenSSL 3 on Debian 12). The only
/// caller of CCrypto; `SHA256Hasher` is the domain type.
enum DigestGateway {
    typealias Context = OpaquePointer

    /// A fresh EVP_MD_CTX initialised for SHA-256; nil only when libcrypto is out of memory.
    static func makeSHA256() -> Context? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(context)
            return nil
        }
        return context
    }

    static func update(_ context: Context, _ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = EVP_DigestUpdate(context, base, bytes.count)
    }

    /// The 32-byte digest; the context is spent afterwards.
    static func finish(_ context: Context) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        return Array(digest.prefix(Int(length)))
    }

    static func free(_ context: Context) { EVP_MD_CTX_free(context) }
}
