import Foundation
@testable import JouleHardware
@testable import JouleWorkloads
import JouleTesting
import Testing

/// `joule export --textfile`: a whole file or the old one, never a half-written `.prom`.
@Suite struct MetricsTextfileTests {
    @Test func replacesTheFileWholeAndLeavesNothingElse() throws {
        let scratch = try ScratchDirectory()
        let first = "# TYPE joule_thermal_state gauge\njoule_thermal_state 0.0\n"
        let path = try MetricsTextfile.write(first, directory: scratch.path)
        #expect(path == scratch.path + "/joule.prom")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == first)
        let second = "# TYPE joule_thermal_state gauge\njoule_thermal_state 3.0\n"
        try MetricsTextfile.write(second, directory: scratch.path + "/")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == second)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["joule.prom"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode.map { $0 & 0o044 } == 0o044, "node_exporter runs as its own user and must read it")
    }

    @Test func aDirectoryThatIsNotOneIsSaidSo() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.path + "/plain"
        try "x".write(toFile: file, atomically: false, encoding: .utf8)
        for directory in [file, scratch.path + "/missing"] {
            #expect {
                try MetricsTextfile.write("", directory: directory)
            } throws: { error in
                (error as? MetricsTextfile.Failure)?.description == "\(directory) is not a directory (node_exporter's --collector.textfile.directory)"
            }
        }
    }
}
