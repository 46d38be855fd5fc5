import Foundation
@testable import JouleHardware
@testable import JouleTransferQueue
import Testing

/// What Add refuses before a transfer is queued: paths its owner could not use, and symlinks,
/// which the transfer would never follow when it writes or reads (issue 19).
struct TransferPathChecksTests {
    let scratch = NSTemporaryDirectory() + "joule-paths-\(UUID().uuidString)"
    let nobody = UserAccount(uid: 65534, name: "nobody", gid: 65534, home: "/nonexistent", groups: [65534])

    private func refusal(_ request: TransferRequest, _ owner: UserAccount) -> TransferAddError? {
        do {
            try TransferScheduler.checkPaths(request, owner: owner)
            return nil
        } catch {
            return error
        }
    }

    @Test func symlinksAndOtherUsersFilesAreRefusedAtAdd() throws {
        try FileManager.default.createDirectory(atPath: scratch + "/real", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        chown(scratch + "/real", 65534, 65534)
        try FileManager.default.createSymbolicLink(atPath: scratch + "/link", withDestinationPath: scratch + "/real")
        try FileManager.default.createSymbolicLink(atPath: scratch + "/real/out", withDestinationPath: "/etc/passwd")
        let url = "https://example.org/f"
        #expect(refusal(TransferRequest(url: url, destination: scratch + "/real/new"), nobody) == nil)
        #expect(refusal(TransferRequest(url: url, destination: scratch + "/link/new"), nobody)
            == .invalid("destination: the directory \(scratch)/link is a symbolic link; name the directory it points to"))
        #expect(refusal(TransferRequest(url: url, destination: scratch + "/real/out"), nobody)
            == .invalid("destination: \(scratch)/real/out is a symbolic link; it is not followed or replaced"))
        #expect(refusal(TransferRequest(url: url, upload: scratch + "/real/out", method: .put), nobody)
            == .invalid("upload: \(scratch)/real/out is a symbolic link; name the file it points to"))
        if CurrentProcess.isRoot {
            let secret = scratch + "/secret"
            try Data("x".utf8).write(to: URL(fileURLWithPath: secret))
            chmod(secret, 0o600)
            #expect(refusal(TransferRequest(url: url, upload: secret, method: .put), nobody)
                == .accessDenied("upload: uid 65534 may not read \(secret)"))
            #expect(refusal(TransferRequest(url: url, destination: scratch + "/new"), nobody)
                == .accessDenied("destination: uid 65534 may not write in \(scratch)"))
        }
    }
}
