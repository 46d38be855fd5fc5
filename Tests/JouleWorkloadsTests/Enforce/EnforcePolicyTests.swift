import Foundation
@testable import JouleWorkloads
import JouleTesting
import Testing

/// The YAML policy format: the committed example, defaults, overrides, and clear errors.
@Suite struct EnforcePolicyTests {
    static let examplePath = PackageRoot.url.appendingPathComponent("examples/enforce-policy.yaml").path

    static func parse(_ text: String) throws -> EnforcePolicy {
        try EnforcePolicy.parse(yaml: text, file: "policy.yaml")
    }

    static func failure(_ text: String) -> EnforcePolicyError? {
        do {
            _ = try parse(text)
            return nil
        } catch let error as EnforcePolicyError {
            return error
        } catch {
            return nil
        }
    }

    @Test func theCommittedExampleParses() throws {
        let policy = try EnforcePolicy.load(path: Self.examplePath)
        #expect(policy.classes.map(\.name) == ["transcode", "backups", "indexer", "builds"])
        #expect(policy.rescanInterval == .seconds(5))
        let transcode = policy.classes[0]
        #expect(transcode.level == .deferrable)
        #expect(transcode.selectors == [.process("ffmpeg"), .commandRegex("HandBrakeCLI|x265")])
        #expect(transcode.pauseAt == .fair && transcode.pauseInLowPowerMode)
        let backups = policy.classes[1]
        #expect(backups.selectors == [.unit("restic-backup.service"), .cgroup("/system.slice/borg.service")])
        #expect(backups.pauseAt == .serious && backups.pauseInLowPowerMode)
        let indexer = policy.classes[2]
        #expect(indexer.selectors == [.pidFile("/run/user/1000/tracker-miner.pid")])
        #expect(indexer.pauseAt == .serious && indexer.pauseInLowPowerMode)
        let builds = policy.classes[3]
        #expect(builds.level == .normal && builds.pauseAt == .critical && !builds.pauseInLowPowerMode)
    }

    @Test func levelDefaultsAndOverrides() throws {
        let policy = try Self.parse("""
            classes:
              a:
                level: deferrable
                pauseInLowPowerMode: false
                match: [{process: a}]
              b:
                level: optional
                pauseAt: never
                pauseInLowPowerMode: yes
                match: [{process: b}]
              c:
                match:
                  - cgroup: /sys/fs/cgroup/system.slice/c.service/
                  - unit: c
                  - unit: user.slice
            """)
        let (a, b, c) = (policy.classes[0], policy.classes[1], policy.classes[2])
        #expect(a.pauseAt == .fair && !a.pauseInLowPowerMode)
        #expect(b.pauseAt == nil && b.pauseInLowPowerMode)
        #expect(c.level == .normal && c.pauseAt == .critical)
        #expect(c.selectors == [.cgroup("/system.slice/c.service"), .unit("c.service"), .unit("user.slice")])
    }

    /// (policy text, expected line, expected key, words the message must contain)
    static let badPolicies: [(String, Int?, String?, String)] = [
        ("classes: [a, b", 2, nil, "not valid YAML"),
        ("", nil, nil, "empty"),
        ("classes:\n  a:\n    match: [{process: a}]\nextra: 1\n", 4, "extra", "unknown key"),
        ("version: 2\nclasses:\n  a:\n    match: [{process: a}]\n", 1, "version", "unsupported version"),
        ("rescanInterval: 0\nclasses:\n  a:\n    match: [{process: a}]\n", 1, "rescanInterval", "between 0.05"),
        ("classes:\n  a:\n    level: urgent\n    match: [{process: a}]\n", 3, "classes.a.level", "unknown level \"urgent\""),
        ("classes:\n  a:\n    lvl: optional\n    match: [{process: a}]\n", 3, "classes.a.lvl", "unknown key"),
        ("classes:\n  a:\n    level: optional\n", 3, "classes.a", "missing key `match`"),
        ("classes:\n  a:\n    match: []\n", 3, "classes.a.match", "no selectors"),
        ("classes:\n  a:\n    match: {process: a}\n", 3, "classes.a.match", "expected a list"),
        ("classes:\n  a:\n    match:\n      - name: a\n", 4, "classes.a.match[0].name", "unknown key"),
        ("classes:\n  a:\n    match:\n      - {process: a, unit: b}\n", 4, "classes.a.match[0]", "exactly one key"),
        ("classes:\n  a:\n    match:\n      - processRegex: '(unclosed'\n", 4, "classes.a.match[0].processRegex", "bad regular expression"),
        ("classes:\n  a:\n    match:\n      - pidFile: run/a.pid\n", 4, "classes.a.match[0].pidFile", "absolute path"),
        ("classes:\n  a:\n    match:\n      - cgroup: /\n", 4, "classes.a.match[0].cgroup", "not a cgroup"),
        ("classes:\n  a:\n    match:\n      - cgroup: system.slice/../init.scope\n", 4, "classes.a.match[0].cgroup", "no `..`"),
        ("classes:\n  a:\n    match:\n      - unit: backup.timer\n", 4, "classes.a.match[0].unit", "not a unit name"),
        ("classes:\n  a:\n    match:\n      - process: [a]\n", 4, "classes.a.match[0].process", "expected a string"),
        ("classes:\n  a:\n    pauseAt: nominal\n    match: [{process: a}]\n", 3, "classes.a.pauseAt", "expected fair, serious, critical or never"),
        ("classes:\n  a:\n    pauseInLowPowerMode: maybe\n    match: [{process: a}]\n", 3, "classes.a.pauseInLowPowerMode", "expected true or false"),
        ("classes: {}\n", 1, "classes", "no classes"),
        ("classes:\n  - a\n", 2, "classes", "expected a mapping"),
        ("version: 1\n", 1, nil, "missing key `classes`"),
        ("classes:\n  a:\n    match: [{process: a}]\n  a:\n    match: [{process: b}]\n", nil, nil, "duplicate key"),
    ]

    @Test(arguments: badPolicies.indices)
    func badPoliciesNameTheFileLineAndKey(_ index: Int) throws {
        let (text, line, key, words) = Self.badPolicies[index]
        let error = try #require(Self.failure(text), "accepted: \(text)")
        #expect(error.file == "policy.yaml")
        if let line { #expect(error.line == line, "\(error)") }
        #expect(error.key == key, "\(error)")
        #expect(error.message.contains(words), "\(error)")
        #expect(error.description.hasPrefix("policy.yaml"))
    }

    @Test func aMissingFileIsNamed() {
        #expect(throws: EnforcePolicyError.self) { try EnforcePolicy.load(path: "/nonexistent/joule-policy.yaml") }
        do {
            _ = try EnforcePolicy.load(path: "/nonexistent/joule-policy.yaml")
        } catch {
            #expect(error.description.contains("/nonexistent/joule-policy.yaml: cannot read"))
        }
    }
}
