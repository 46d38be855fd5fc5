import Foundation
import JouleHardware
import JouleTesting
import Testing

/// inotify on real directories: a directory made or removed under a watched one is a change;
/// a watched directory removed drops out; stop ends the stream.
@Suite struct DirectoryWatchTests {
    @Test func directoriesMadeAndRemovedAreChanges() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-dirwatch")
        let watch = try DirectoryWatch()
        try watch.watch(scratch.path)
        try watch.watch(scratch.path)  // once is enough
        #expect(watch.watched == [scratch.path])
        var changes = watch.changes.makeAsyncIterator()
        try FileManager.default.createDirectory(atPath: scratch.path + "/app.scope", withIntermediateDirectories: false)
        #expect(await changes.next() != nil)
        try watch.watch(scratch.path + "/app.scope")
        try FileManager.default.removeItem(atPath: scratch.path + "/app.scope")
        #expect(await changes.next() != nil)
        #expect(try await eventually { watch.watched == [scratch.path] }, "the removed directory's watch is gone")
        watch.stop()
        while await changes.next() != nil {}  // the stream ends
    }

    @Test func aMissingDirectoryIsNamed() throws {
        let watch = try DirectoryWatch()
        defer { watch.stop() }
        do {
            try watch.watch("/nonexistent/joule-dirwatch")
            Issue.record("watched a directory that does not exist")
        } catch {
            #expect("\(error)".contains("/nonexistent/joule-dirwatch"), "\(error)")
        }
    }
}
