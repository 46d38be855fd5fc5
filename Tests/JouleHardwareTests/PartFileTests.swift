import Foundation
import Testing
@testable import JouleHardware

@Suite struct PartFileTests {
    @Test func sha256MatchesTheStandardVectors() throws {
        let abc = try SHA256Hasher()
        abc.update(Array("abc".utf8))
        #expect(try abc.finalize() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try SHA256Hasher().finalize() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let path = NSTemporaryDirectory() + "joule-sha-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Over 1 MiB, so the file digest reads more than one piece.
        let bytes = (0..<(3 << 19)).map { UInt8($0 % 253) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let whole = try SHA256Hasher()
        whole.update(bytes)
        #expect(try SHA256Hasher.hexDigest(ofFile: path) == (try whole.finalize()))
    }

    @Test func positionedWritesTruncateAndDurableRename() throws {
        let directory = NSTemporaryDirectory() + "joule-part-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let part = try PartFile(destination: directory + "/f", owner: nil)
        try Array("hello world".utf8).withUnsafeBytes { try part.write($0, at: 0) }
        try Array("W".utf8).withUnsafeBytes { try part.write($0, at: 6) }
        try part.sync()
        #expect(try part.size() == 11)
        try part.truncate(to: 7)
        #expect(try part.size() == 7)
        part.close()
        // Reopening keeps what was there (no O_TRUNC).
        let again = try PartFile(destination: directory + "/f", owner: nil)
        #expect(try again.size() == 7)
        again.close()
        try again.placer().moveIntoPlace()
        #expect(try FileSystem.readText(directory + "/f") == "hello W")
        #expect(FileSystem.kind(of: directory + "/f.part") == nil)
        #expect(throws: HardwareError.self) { try PartFile(destination: directory + "/missing/f", owner: nil) }
    }
}
