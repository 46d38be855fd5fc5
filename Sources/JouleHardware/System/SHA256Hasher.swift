/// Incremental SHA-256 (system libcrypto), for verifying a finished download against the
/// digest its owner gave. Not Sendable: one task feeds it.
public final class SHA256Hasher {
    private let context: DigestGateway.Context
    private var finished = false

    /// Throws when libcrypto cannot be loaded or cannot start a digest.
    public init() throws(HardwareError) {
        context = try DigestGateway.makeSHA256()
    }

    deinit { DigestGateway.free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "SHA256Hasher used after finalize()")
        DigestGateway.update(context, bytes)
    }

    public func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The digest as 64 lowercase hex digits.
    public func finalize() throws(HardwareError) -> String {
        precondition(!finished, "SHA256Hasher finalized twice")
        finished = true
        guard let digest = DigestGateway.finish(context) else {
            throw HardwareError(operation: "sha256", path: "libcrypto", detail: "EVP_DigestFinal_ex failed")
        }
        return digest.map { byte in
            let hex = Array("0123456789abcdef".utf8)
            return String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
        }.joined()
    }

    /// The hex digest of a whole file's bytes, read in 1 MiB pieces.
    public static func hexDigest(ofFile path: String) throws(HardwareError) -> String {
        let fd = try Syscalls.open(path, .readOnly)
        defer { Syscalls.close(fd) }
        return try hexDigest(ofDescriptor: fd, path: path)
    }

    /// The hex digest of what an open descriptor holds, read with pread(2) from offset 0.
    static func hexDigest(ofDescriptor fd: Int32, path: String) throws(HardwareError) -> String {
        let hasher = try SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var offset = 0
        while true {
            let n = try Syscalls.pread(fd, into: buffer, at: offset, path: path)
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += n
        }
        return try hasher.finalize()
    }
}
