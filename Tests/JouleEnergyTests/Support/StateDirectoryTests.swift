import JouleEnergy
import Testing

@Suite struct StateDirectoryTests {
    static func resolve(_ environment: [String: String], root: Bool) -> String? {
        StateDirectory.resolve(environment: environment, isRoot: root)?.path
    }

    @Test func precedence() {
        #expect(Self.resolve(["JOULE_STATE_DIR": "/x", "HOME": "/h"], root: true) == "/x")
        #expect(Self.resolve(["JOULE_STATE_DIR": "/x/", "HOME": "/h"], root: false) == "/x")
        #expect(Self.resolve(["HOME": "/root"], root: true) == "/var/lib/joule")
        #expect(Self.resolve([:], root: true) == "/var/lib/joule")
        #expect(Self.resolve(["XDG_STATE_HOME": "/s", "HOME": "/h"], root: false) == "/s/joule")
        #expect(Self.resolve(["XDG_STATE_HOME": "relative", "HOME": "/h"], root: false) == "/h/.local/state/joule")
        #expect(Self.resolve(["HOME": "/h"], root: false) == "/h/.local/state/joule")
    }

    /// Without HOME no directory is formed: every store says so instead of writing under `/`
    /// (the reports store used to fall back to `/.local/state/joule/reports`).
    @Test func noHomeMeansNoDirectory() {
        #expect(Self.resolve([:], root: false) == nil)
        #expect(Self.resolve(["HOME": ""], root: false) == nil)
    }

    @Test func filesInside() {
        let directory = StateDirectory(path: "/var/lib/joule")
        #expect(directory.reports == "/var/lib/joule/reports")
        #expect(directory.file("enforce.lock") == "/var/lib/joule/enforce.lock")
    }
}
