import Foundation
import Testing
@testable import JouleHardware

/// Files written for others (issue 19): opened under a directory descriptor as their owner,
/// never through a planted symlink; hooks run as their owner with a clean environment; files
/// that steer root are refused when another user could change them. As root, the other user
/// is nobody (65534); every test checks that nothing outside the owner's reach changed.
@Suite(.enabled(if: CurrentProcess.isRoot, "needs root, to act for another user"))
struct OwnedFileTests {
    let scratch: String
    /// nobody's own directory (0755, owned by 65534).
    let home: String
    /// A root-only directory (0700) with a root-only file, standing for /etc.
    let etc: String
    let nobody = UserAccount(uid: 65534, name: "nobody", gid: 65534, home: "/nonexistent", groups: [65534], shell: "/usr/sbin/nologin")

    init() throws {
        scratch = NSTemporaryDirectory() + "joule-owned-\(UUID().uuidString)"
        home = scratch + "/home"
        etc = scratch + "/etc"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        chown(home, 65534, 65534)
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try Data("secret\n".utf8).write(to: URL(fileURLWithPath: etc + "/shadow"))
        chmod(etc + "/shadow", 0o600)
    }

    /// The root-only directory still holds only its untouched file.
    private func etcUntouched() throws {
        #expect(try FileManager.default.contentsOfDirectory(atPath: etc) == ["shadow"])
        #expect(try String(contentsOfFile: etc + "/shadow", encoding: .utf8) == "secret\n")
    }

    private func owner(_ path: String) throws -> UInt32? {
        (try FileManager.default.attributesOfItem(atPath: path)[.ownerAccountID] as? NSNumber)?.uint32Value
    }

    @Test func aDirectorySwappedForASymlinkBeforeTheRenameWritesNothingOutside() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for owner in [nobody, nil] {
            let directory = home + "/downloads-\(owner == nil ? "root" : "nobody")"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            chown(directory, 65534, 65534)
            let part = try PartFile(destination: directory + "/shadow", owner: owner)
            try Array("attacker's bytes".utf8).withUnsafeBytes { try part.write($0, at: 0) }
            try part.sync()
            part.close()
            // The race: between the check (the open) and the rename, the directory's path
            // becomes a symlink to the root-only directory.
            try FileManager.default.moveItem(atPath: directory, toPath: directory + ".moved")
            try FileManager.default.createSymbolicLink(atPath: directory, withDestinationPath: etc)
            try part.placer().moveIntoPlace()
            // The rename stayed in the directory that was opened.
            #expect(try String(contentsOfFile: directory + ".moved/shadow", encoding: .utf8) == "attacker's bytes")
            #expect(try self.owner(directory + ".moved/shadow") == (owner == nil ? 0 : 65534))
            try etcUntouched()
        }
    }

    @Test func aSymlinkedDirectoryOrPartFileIsNotFollowed() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try FileManager.default.createSymbolicLink(atPath: home + "/etc-link", withDestinationPath: etc)
        #expect(throws: HardwareError.self) { try PartFile(destination: home + "/etc-link/shadow", owner: nil) }
        try FileManager.default.createSymbolicLink(atPath: home + "/x.part", withDestinationPath: etc + "/shadow")
        for owner in [nobody, nil] {
            do {
                _ = try PartFile(destination: home + "/x", owner: owner)
                Issue.record("a .part symlink was opened")
            } catch {
                #expect(error.description.contains("a symbolic link, not followed"), "\(error)")
            }
        }
        // nobody may not create a file in root's directory, though the daemon is root.
        #expect(throws: HardwareError.self) { try PartFile(destination: etc + "/planted", owner: nobody) }
        try etcUntouched()
    }

    @Test func atomicWritesRefuseSymlinksAndLeaveNoTemporaryFiles() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let reports = scratch + "/reports"
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: reports + "/joule.prom", withDestinationPath: etc + "/shadow")
        #expect(throws: HardwareError.self) { try AtomicFile.write("metrics\n", to: reports + "/joule.prom") }
        try FileManager.default.createSymbolicLink(atPath: scratch + "/journal-dir", withDestinationPath: etc)
        #expect(throws: HardwareError.self) { try AtomicFile.write("knobs\n", to: scratch + "/journal-dir/knobs") }
        try etcUntouched()
        try AtomicFile.write("fine\n", to: reports + "/ok", mode: 0o600)
        #expect(try String(contentsOfFile: reports + "/ok", encoding: .utf8) == "fine\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: reports).sorted() == ["joule.prom", "ok"])
    }

    @Test func anUploadSourceIsReadWithItsOwnersRights() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        #expect(throws: HardwareError.self) { try SourceFile(path: etc + "/shadow", owner: nobody) }
        try Data("mine".utf8).write(to: URL(fileURLWithPath: home + "/mine"))
        #expect(try SourceFile(path: home + "/mine", owner: nobody).size() == 4)
        // Root itself reads it, for a transfer root added.
        #expect(try SourceFile(path: etc + "/shadow", owner: nil).size() == 7)
    }

    @Test func hooksRunAsTheirOwnerWithACleanEnvironment() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let out = home + "/hook.out"
        let result = HookRunner.run(
            command: "{ id -u; id -g; id -G; pwd; env; } > \(out)", environment: ["JOULE_EVENT": "completed", "LD_PRELOAD": "/evil.so"],
            as: UserAccount(uid: 65534, name: "nobody", gid: 65534, home: home, groups: [65534], shell: "/bin/sh"))
        #expect(try result.get() == 0)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(4)) == ["65534", "65534", "65534", home])
        #expect(try owner(out) == 65534)
        var environment: [String: String] = [:]
        for line in lines.dropFirst(4) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        // The shell adds PWD (and may add SHLVL and _); nothing of the daemon's comes through.
        for added in ["PWD", "SHLVL", "_", "OLDPWD"] { environment[added] = nil }
        #expect(environment == [
            "JOULE_EVENT": "completed", "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "USER": "nobody",
            "LOGNAME": "nobody", "SHELL": "/bin/sh",
        ])
        // A hook cannot write where its owner could not.
        let denied = HookRunner.run(command: "echo x > \(etc)/planted", environment: [:], as: nobody)
        #expect(try denied.get() != 0)
        try etcUntouched()
    }

    @Test func aHookScriptAnotherUserCanChangeIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let marker = scratch + "/ran"
        let script = scratch + "/hook.sh"
        try Data("#!/bin/sh\ntouch \(marker)\n".utf8).write(to: URL(fileURLWithPath: script))
        chmod(script, 0o777)
        let root = UserAccount(uid: 0, name: "root", gid: 0, home: "/root", groups: [0])
        guard case .failure(let error) = HookRunner.run(command: script, environment: [:], as: root) else {
            Issue.record("a world-writable hook ran as root")
            return
        }
        #expect(error.description == "exec \(script): refused: \(script) is writable by every user (mode 777)")
        chmod(script, 0o755)
        chown(script, 12345, 12345)
        guard case .failure(let owned) = HookRunner.run(command: script + " --flag", environment: [:], as: nobody) else {
            Issue.record("another user's hook ran as nobody")
            return
        }
        #expect(owned.description.hasSuffix("\(script) is owned by uid 12345, not root or uid 65534"))
        #expect(!FileManager.default.fileExists(atPath: marker))
        // Its owner's own script is theirs to run.
        chown(script, 65534, 65534)
        #expect(FileTrust.problem(with: script, owner: 65534) == nil)
        #expect(FileTrust.problem(with: script) == "\(script) is owned by uid 65534, not root")
    }

    @Test func fileTrustNamesTheDirectoryAtFault() throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let open = scratch + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        let file = open + "/joule.yaml"
        try Data("{}\n".utf8).write(to: URL(fileURLWithPath: file))
        #expect(FileTrust.problem(with: file) == nil)
        chmod(open, 0o777)
        #expect(FileTrust.problem(with: file) == "\(open) is writable by every user (mode 777)")
        chmod(open, 0o1777)
        #expect(FileTrust.problem(with: file) == nil)
        chmod(open, 0o775)
        chown(open, 0, 100)
        #expect(FileTrust.problem(with: file) == "\(open) is writable by group 100 (mode 775)")
        chown(open, 0, 0)
        #expect(FileTrust.problem(with: file) == nil)
        // Through a symlink in a trusted place to a file in an untrusted one.
        chmod(open, 0o777)
        try FileManager.default.createSymbolicLink(atPath: scratch + "/link.yaml", withDestinationPath: file)
        #expect(FileTrust.problem(with: scratch + "/link.yaml") == "\(open) is writable by every user (mode 777)")
    }
}
