import JouleEnergy
import Testing

@Suite struct RuntimeDirectoryTests {
    static func resolve(_ environment: [String: String], root: Bool) -> String? {
        RuntimeDirectory.resolve(environment: environment, isRoot: root)?.path
    }

    @Test func precedence() {
        #expect(Self.resolve(["JOULE_RUNTIME_DIR": "/x/", "XDG_RUNTIME_DIR": "/run/user/1000"], root: true) == "/x")
        #expect(Self.resolve(["XDG_RUNTIME_DIR": "/run/user/0"], root: true) == "/run/joule")
        #expect(Self.resolve(["XDG_RUNTIME_DIR": "/run/user/1000"], root: false) == "/run/user/1000/joule")
        #expect(Self.resolve(["XDG_RUNTIME_DIR": "relative"], root: false) == nil)
        #expect(Self.resolve(["HOME": "/h"], root: false) == nil)
    }

    @Test func filesInside() {
        #expect(RuntimeDirectory(path: "/run/joule").file("lowpower-knobs.json") == "/run/joule/lowpower-knobs.json")
    }
}
