import Testing
@testable import JouleTransferQueue

/// `joule transfer add`'s options as the `TransferRequest` sent to `Add`.
@Suite struct TransferAddOptionsTests {
    static let cwd = "/home/u/work"

    @Test func everyOptionLandsInTheRequest() throws {
        let options = TransferAddOptions(
            TransferRequest(
                url: "https://example.org/data/set.tar?sig=1#part", destination: "out/set.tar", discretionary: true,
                unmeteredOnly: true, requireAC: true, batch: "nightly", timeout: 3600, beginAfter: 60,
                sha256: String(repeating: "AB", count: 32), onComplete: "notify-send done"),
            priority: "low", headers: ["Authorization: Bearer x", "X-Trace:  1 "])
        let request = try options.request(workingDirectory: Self.cwd)
        #expect(request == TransferRequest(
            url: "https://example.org/data/set.tar?sig=1#part", destination: "/home/u/work/out/set.tar",
            headers: [TransferHeader(name: "Authorization", value: "Bearer x"), TransferHeader(name: "X-Trace", value: "1")],
            discretionary: true, unmeteredOnly: true, requireAC: true, priority: .low, batch: "nightly", timeout: 3600,
            beginAfter: 60, sha256: String(repeating: "AB", count: 32), onComplete: "notify-send done"))
        // The daemon's check passes, lowercasing the digest.
        #expect(try request.validated().sha256 == String(repeating: "ab", count: 32))
    }

    /// Without --to the download is named after the URL's last segment, in the cwd.
    @Test(arguments: [
        ("https://example.org/pub/linux.iso", "/home/u/work/linux.iso"),
        ("http://example.org:8080/a/b/c.tar.gz?token=1", "/home/u/work/c.tar.gz"),
        ("https://example.org/file%20name.txt#frag", "/home/u/work/file%20name.txt"),
        ("https://example.org/a%2Fb", "/home/u/work/a%2Fb"),
    ])
    func theDestinationDefaultsToTheLastSegment(_ url: String, _ expected: String) throws {
        #expect(try TransferAddOptions(TransferRequest(url: url)).request(workingDirectory: Self.cwd).destination == expected)
    }

    @Test(arguments: ["https://example.org/", "https://example.org", "https://example.org/dir/?q=1", "http://h/..", "http://h/a/."])
    func aURLNamingNoFileNeedsTo(_ url: String) {
        #expect(throws: TransferRequest.Invalid.self) { try TransferAddOptions(TransferRequest(url: url)).request(workingDirectory: Self.cwd) }
    }

    /// A URL that does not parse keeps no destination, so `validated()` names the URL.
    @Test func anUnparsableURLIsLeftToValidation() throws {
        let request = try TransferAddOptions(TransferRequest(url: "example.org/file")).request(workingDirectory: Self.cwd)
        #expect(request.destination == nil)
        #expect(throws: TransferRequest.Invalid("url: \"example.org/file\" is not a URL")) { try request.validated() }
    }

    /// Issue 32: the daemon's checks run before anything is sent, worded with the option.
    @Test func validatedRequestNamesTheOption() throws {
        #expect(throws: TransferRequest.Invalid("--sha256 must be 64 hex digits, not \"xyz\"")) {
            try TransferAddOptions(TransferRequest(url: "https://example.org/x", sha256: "xyz")).validatedRequest(workingDirectory: Self.cwd)
        }
        #expect(throws: TransferRequest.Invalid("URL: unsupported scheme \"ftp\" (http and https only)")) {
            try TransferAddOptions(TransferRequest(url: "ftp://example.org/x")).validatedRequest(workingDirectory: Self.cwd)
        }
        let sha = String(repeating: "AB", count: 32)
        let request = try TransferAddOptions(TransferRequest(url: "https://example.org/x", sha256: sha)).validatedRequest(workingDirectory: Self.cwd)
        #expect(request.sha256 == sha.lowercased())
    }

    @Test func anUploadIsAbsoluteAndPutByDefault() throws {
        var options = TransferAddOptions(TransferRequest(url: "https://example.org/up", upload: "../logs/today.log"))
        let put = try options.request(workingDirectory: Self.cwd)
        #expect(put.upload == "/home/u/logs/today.log")
        #expect(put.destination == nil)
        #expect(put.effectiveMethod == .put)
        options.method = "post"
        #expect(try options.request(workingDirectory: Self.cwd).method == .post)
    }

    @Test(arguments: [
        ("/abs/./x//y/../z", "/ignored", "/abs/x/z"),
        ("rel", "/", "/rel"),
        ("./a/b/", "/c", "/c/a/b"),
        ("../../..", "/a", "/"),
    ])
    func pathsAreMadeAbsolute(_ path: String, _ directory: String, _ expected: String) {
        #expect(TransferAddOptions.absolute(path, in: directory) == expected)
    }

    @Test func misuseIsAUsageError() {
        func usage(_ change: (inout TransferAddOptions) -> Void) -> String? {
            var options = TransferAddOptions(TransferRequest(url: "https://example.org/x"))
            change(&options)
            do {
                _ = try options.request(workingDirectory: Self.cwd)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(usage { $0.given.destination = "a"; $0.given.upload = "b" } == "--to and --upload exclude each other: a transfer downloads or uploads")
        #expect(usage { $0.method = "PUT" } == "--method applies to --upload only (a download is a GET)")
        #expect(usage { $0.given.upload = "b"; $0.method = "GET" } == "--method must be PUT or POST, not 'GET'")
        #expect(usage { $0.priority = "urgent" } == "--priority must be high, normal or low, not 'urgent'")
        #expect(usage { $0.headers = ["NoColon"] } == "--header must be 'Name: value', not 'NoColon'")
        #expect(usage { $0.priority = "high" } == nil)
    }
}
