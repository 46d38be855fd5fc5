import Testing
@testable import JouleHardware

/// Every spelling of a cgroup becomes one value.
@Suite struct CgroupPathTests {
    @Test func spellingsNormalise() {
        for text in ["app.slice/x.service", "/app.slice/x.service/", "/sys/fs/cgroup/app.slice/x.service", "app.slice//x.service"] {
            #expect(CgroupPath(text).description == "/app.slice/x.service")
        }
        #expect(CgroupPath("/").isRoot)
        #expect(CgroupPath("/sys/fs/cgroup").isRoot)
        #expect(CgroupPath("/sys/fs/cgroup/").isRoot)
        #expect(CgroupPath("").description == "/")
    }

    @Test func policiesNameOnlyCgroupsBelowTheRoot() {
        #expect(CgroupPath(validating: "system.slice/backup.service")?.description == "/system.slice/backup.service")
        #expect(CgroupPath(validating: "/") == nil)
        #expect(CgroupPath(validating: "/sys/fs/cgroup") == nil)
        #expect(CgroupPath(validating: "/a/../b") == nil)
        #expect(CgroupPath(validating: "./a") == nil)
    }

    @Test func familyAndFiles() {
        let path = CgroupPath("/app.slice/x.service")
        #expect(path.parent == CgroupPath("/app.slice"))
        #expect(CgroupPath("/app.slice").parent == .root)
        #expect(CgroupPath.root.parent == nil)
        #expect(CgroupPath("/app.slice").contains(path))
        #expect(CgroupPath.root.contains(path))
        #expect(path.contains(path))
        #expect(!CgroupPath("/app").contains(CgroupPath("/app.slice")))
        #expect(!path.contains(CgroupPath("/app.slice")))
        #expect(path.directory(mount: "/sys/fs/cgroup") == "/sys/fs/cgroup/app.slice/x.service")
        #expect(CgroupPath.root.directory(mount: "/sys/fs/cgroup") == "/sys/fs/cgroup")
        #expect(CgroupPath.root.appending("a").description == "/a")
    }
}
