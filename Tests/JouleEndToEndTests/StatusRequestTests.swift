import ArgumentParser
import Testing
@testable import joule

/// `joule status`'s own parse (no ArgumentParser) takes exactly the forms it knows, and reads
/// them as ArgumentParser does; everything else is left to ArgumentParser.
@Suite struct StatusRequestTests {
    /// What ArgumentParser makes of the same words, or nil when it refuses them.
    static func parsed(_ words: [String]) -> StatusRequest? {
        guard let command = try? StatusCommand.parseAsRoot(words) as? StatusCommand else { return nil }
        return StatusRequest(root: command.root, json: command.json)
    }

    @Test(arguments: [
        [], ["--json"], ["--root", "/tmp/fixture"], ["--root=/tmp/fixture"], ["--json", "--root", "a b"],
        ["--root", "x", "--json"], ["--root=x=y", "--json"], ["--root", "relative/dir"],
    ])
    func theFormsItKnowsAreReadAsArgumentParserReadsThem(words: [String]) throws {
        let own = try #require(StatusRequest(words: words))
        #expect(own == Self.parsed(words))
    }

    @Test(arguments: [
        ["--help"], ["-h"], ["help"], ["--json", "--json"], ["--root", "a", "--root", "b"], ["--root"],
        ["--root="], ["--root", ""], ["--root", "--json"], ["--root", "-x"], ["--jsonx"], ["-j"], ["extra"],
        ["--json", "--"], ["--generate-completion-script", "bash"], ["--version"], ["--json=true"],
    ])
    func everythingElseIsLeftToArgumentParser(words: [String]) {
        #expect(StatusRequest(words: words) == nil)
    }

    // `--root --json` is no longer among them: every value option takes a value starting with
    // '-' (issue 32), so it names a root called --json, which then does not exist (exit 2).
    @Test(arguments: [["--root="], ["--root", ""], ["--root"], ["--jsonx"], ["extra"]])
    func whatItLeavesThatArgumentParserRefusesStaysAnError(words: [String]) {
        #expect(Self.parsed(words) == nil)
    }
}
