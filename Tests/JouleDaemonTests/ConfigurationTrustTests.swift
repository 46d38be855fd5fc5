import Foundation
@testable import JouleHardware
@testable import JouleWorkloads
@testable import JouleDaemon
import Testing

/// As root, the daemon's config and an enforce policy are refused when another user could
/// have changed them (as sudo refuses such a sudoers), and the error says which file or
/// directory lets them and how.
@Suite(.enabled(if: CurrentProcess.isRoot, "needs root: the check applies to root only"))
struct ConfigurationTrustTests {
    let scratch = NSTemporaryDirectory() + "joule-trust-\(UUID().uuidString)"

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func aConfigOwnedByAnotherUserIsRefused() throws {
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let config = scratch + "/joule.yaml"
        try write("transfers:\n  maxConcurrent: 2\n", to: config)
        #expect(try DaemonConfiguration.load(path: config).file == config)
        chown(config, 65534, 65534)
        #expect(throws: ConfigurationError(
            file: config,
            message: "refused: \(config) is owned by uid 65534, not root; as root, joule reads only files no other user can change"
        )) { try DaemonConfiguration.load(path: config) }
    }

    @Test func aPolicyInAWorldWritableDirectoryIsRefusedThroughTheConfig() throws {
        try FileManager.default.createDirectory(atPath: scratch + "/policies", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let policy = scratch + "/policies/enforce.yaml"
        try write("classes:\n  backups:\n    level: optional\n    match: [{process: restic}]\n", to: policy)
        let config = scratch + "/joule.yaml"
        try write("enforce:\n  policy: policies/enforce.yaml\n", to: config)
        #expect(try DaemonConfiguration.load(path: config).enforce != nil)
        chmod(scratch + "/policies", 0o777)
        do {
            _ = try DaemonConfiguration.load(path: config)
            Issue.record("a policy others can change was loaded")
        } catch {
            #expect(error.description.hasPrefix(
                "\(policy): refused: \(scratch)/policies is writable by every user (mode 777); as root, joule reads only files no other user can change"),
                "\(error)")
            #expect(error.description.contains("(from \(config):"))
        }
        do {
            _ = try EnforcePolicy.load(path: policy)
            Issue.record("a policy others can change was loaded")
        } catch {
            #expect(error.description.contains("writable by every user"))
        }
        // The sticky bit, as on /tmp, keeps others from replacing it.
        chmod(scratch + "/policies", 0o1777)
        #expect(try EnforcePolicy.load(path: policy).classes.count == 1)
        // Group-writable for a group other than root is refused too.
        chmod(policy, 0o664)
        chown(policy, 0, 100)
        #expect(throws: (any Error).self) { try EnforcePolicy.load(path: policy) }
    }
}
