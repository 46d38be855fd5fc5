import JouleHardware
import NIOCore

/// An upload's request body: its `SourceFile` read in `chunkSize` pieces as AsyncHTTPClient
/// asks for them (it waits for the connection's demand, so at most a few pieces are in memory).
/// Each iteration starts again at byte 0, as every attempt and every 307/308 must. The size is
/// checked with fstat(2) after every piece: a file that changes mid-send would otherwise reach
/// the server as a mix of two versions under the first version's Content-Length.
struct SourceFileBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// Thrown when the file's size differs from the Content-Length already sent.
    struct Changed: Error, CustomStringConvertible {
        var path: String
        var expected: Int64
        var now: Int64
        var description: String {
            "upload source \(path) changed size during the send (\(expected) bytes when it began, now \(now))"
        }
    }

    let file: SourceFile
    let length: Int64
    let counter: ByteCounter
    var chunkSize = 256 << 10

    func makeAsyncIterator() -> Iterator { Iterator(body: self) }

    struct Iterator: AsyncIteratorProtocol {
        let body: SourceFileBody
        let allocator = ByteBufferAllocator()
        var offset: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            guard offset < body.length else { return nil }
            let want = Int(Swift.min(Int64(body.chunkSize), body.length - offset))
            var buffer = allocator.buffer(capacity: want)
            let (file, at) = (body.file, offset)
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { raw in
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<want]), at: at)
            }
            let size = try file.size()
            // A short read means the file shrank; a size other than the sent length, any change.
            guard count > 0, size == body.length else {
                throw Changed(path: file.path, expected: body.length, now: size)
            }
            offset += Int64(count)
            body.counter.add(count)
            return buffer
        }
    }
}
