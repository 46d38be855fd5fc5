import Foundation
@testable import JouleHardware
@testable import JouleTransferQueue
@testable import JouleHTTP
import JouleTesting
import Testing

/// What a root daemon writes and reads for a transfer's owner (issue 19, "Files written for
/// others"): as that owner, never through a planted symlink, never from another scheme. Each
/// test asserts that nothing outside the owner's reach changed. As root, the owner is nobody
/// (65534), given a scratch directory of its own.
@Suite(.enabled(if: CurrentProcess.isRoot, "needs root, to act for another user"))
struct TransferOwnerRightsTests {
    let server: FaultHTTPServer
    /// nobody's own directory, 0755, owned by 65534.
    let home: String
    /// A root-only file (0600) standing for /etc/shadow, in a root-only directory.
    let secret: String
    let nobody = UserAccount(uid: 65534, name: "nobody", gid: 65534, home: "/nonexistent", groups: [65534])
    static let secretText = "root:$y$secret:19000:0:99999:7:::\n"

    init() async throws {
        server = try await FaultHTTPServer.start()
        home = server.destination("nobody")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        chown(home, 65534, 65534)
        let etc = server.destination("etc")
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        secret = etc + "/shadow"
        try Data(Self.secretText.utf8).write(to: URL(fileURLWithPath: secret))
        chmod(secret, 0o600)
    }

    private func secretUntouched() throws {
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == Self.secretText)
        let info = try FileManager.default.attributesOfItem(atPath: secret)
        #expect((info[.ownerAccountID] as? NSNumber)?.uint32Value == 0)
        #expect((info[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    private func download(_ request: DownloadRequest) async throws -> TransferAttemptResult {
        try await using(HTTPRangeDownloader()) { downloader in await downloader.attempt(request) { _ in } }
    }

    @Test func aDownloadIsWrittenAsItsOwner() async throws {
        let dest = home + "/plain.bin"
        let result = try await download(DownloadRequest(url: server.url("/plain?size=5000"), destination: dest, owner: nobody))
        #expect(result.outcome == .completed)
        let info = try FileManager.default.attributesOfItem(atPath: dest)
        #expect((info[.ownerAccountID] as? NSNumber)?.uint32Value == 65534)
        #expect(FaultHTTPServer.fileBytes(dest) == FaultHTTPServer.body(size: 5000))
    }

    @Test func aDestinationTheOwnerCannotWriteIsRefused() async throws {
        // The root-only directory: root could write there, nobody cannot.
        let dest = server.destination("etc") + "/planted"
        let result = try await download(DownloadRequest(url: server.url("/denied?size=5000"), destination: dest, owner: nobody))
        guard case .failed(let reason) = result.outcome else { Issue.record("expected failure, got \(result.outcome)"); return }
        #expect(reason.contains("Permission denied") || reason.contains("EACCES"), "\(reason)")
        #expect(!FaultHTTPServer.exists(dest) && !FaultHTTPServer.exists(dest + ".part"))
        #expect(try server.requests("/denied").isEmpty)
        try secretUntouched()
    }

    @Test func aDestinationSymlinkToARootOnlyFileIsRefused() async throws {
        let dest = home + "/out"
        try FileManager.default.createSymbolicLink(atPath: dest, withDestinationPath: secret)
        let result = try await download(DownloadRequest(url: server.url("/link?size=5000"), destination: dest, owner: nobody))
        guard case .failed(let reason) = result.outcome else { Issue.record("expected failure, got \(result.outcome)"); return }
        #expect(reason.contains("symbolic link"), "\(reason)")
        // The link stays a link, to the untouched file; the bytes stay in the owner's .part.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dest) == secret)
        try secretUntouched()
    }

    @Test func aPartFileSymlinkIsNotFollowed() async throws {
        let dest = home + "/out2"
        try FileManager.default.createSymbolicLink(atPath: dest + ".part", withDestinationPath: secret)
        // As root itself too: O_NOFOLLOW, not only the owner's rights, refuses the link.
        for owner in [nobody, nil] {
            let result = try await download(DownloadRequest(url: server.url("/partlink?size=5000"), destination: dest, owner: owner))
            guard case .failed(let reason) = result.outcome else { Issue.record("expected failure, got \(result.outcome)"); return }
            #expect(reason.contains("symbolic link"), "\(reason)")
        }
        #expect(!FaultHTTPServer.exists(dest))
        try secretUntouched()
    }

    @Test func aRedirectToFileIsRefused() async throws {
        let dest = home + "/shadow-copy"
        let result = try await download(DownloadRequest(
            url: server.url("/go?location=file:///etc/shadow"), destination: dest, owner: nobody))
        #expect(result.outcome == .failed(reason: "HTTP 302 redirect to file: refused; only http and https are followed"))
        #expect(FaultHTTPServer.fileBytes(dest + ".part") ?? [] == [])
        #expect(!FaultHTTPServer.exists(dest))
        for location in ["ftp://127.0.0.1/x", "FILE:/etc/shadow"] {
            let other = try await download(DownloadRequest(
                url: server.url("/go2?location=\(location)"), destination: home + "/other", owner: nobody))
            guard case .failed(let reason) = other.outcome else { Issue.record("\(location): \(other.outcome)"); continue }
            #expect(reason.contains("refused"))
        }
        let mine = home + "/mine.txt"
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: mine))
        let upload = try await using(HTTPUploader()) { uploader in
            await uploader.attempt(UploadRequest(url: server.url("/up?location=file:///etc/shadow"), source: mine, owner: nobody))
        }
        #expect(upload.outcome == .failed(reason: "HTTP 307 redirect to file: refused; only http and https are followed"))
        try secretUntouched()
    }

    @Test func anUploadOfARootOnlyFileByAnotherUserFailsSafe() async throws {
        let result = try await using(HTTPUploader()) { uploader in
            await uploader.attempt(UploadRequest(url: server.url("/steal"), method: .put, source: secret, owner: nobody))
        }
        guard case .failed(let reason) = result.outcome else { Issue.record("expected failure, got \(result.outcome)"); return }
        #expect(reason.hasPrefix("upload source: open \(secret)"), "\(reason)")
        // Not a byte left the machine.
        #expect(try server.requests("/steal").isEmpty)
        #expect(!FaultHTTPServer.exists(server.received("/steal")))
        // Through a symlink the owner planted in its own directory, likewise.
        let link = home + "/innocent.txt"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: secret)
        let linked = try await using(HTTPUploader()) { uploader in
            await uploader.attempt(UploadRequest(url: server.url("/steal2"), method: .put, source: link, owner: nobody))
        }
        #expect(linked.outcome.isFailed)
        #expect(try server.requests("/steal2").isEmpty)
        try secretUntouched()
    }
}

extension TransferOutcome {
    var isFailed: Bool {
        if case .failed = self { return true }
        return false
    }
}
