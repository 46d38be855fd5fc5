@testable import JouleHardware
@testable import JouleTransferQueue
@testable import JouleHTTP
import Testing

@Suite struct ContentRangeTests {
    @Test func parsesTheThreeForms() {
        #expect(ContentRange("bytes 100-199/200") == .range(first: 100, last: 199, length: 200))
        #expect(ContentRange("bytes 0-9/*") == .range(first: 0, last: 9, length: nil))
        #expect(ContentRange("bytes */4096") == .unsatisfied(length: 4096))
        #expect(ContentRange(" Bytes 5-5/6 ") == .range(first: 5, last: 5, length: 6))
    }

    @Test func rejectsJunk() {
        for text in ["", "bytes", "bytes 10-5/20", "bytes 0-20/20", "items 0-1/2", "bytes */*", "bytes -1-5/9", "bytes 1-x/9"] {
            #expect(ContentRange(text) == nil, "\(text)")
        }
    }
}

@Suite struct ResponseHeadCheckTests {
    let stored = TransferValidators(strongETag: "\"a\"", lastModified: nil, totalLength: 1000)

    @Test func aRedirectToAnotherSchemeFailsWithTheScheme() {
        for (location, scheme) in [("file:///etc/shadow", "file"), ("FTP://host/x", "ftp"), (" gopher:x", "gopher")] {
            #expect(ResponseHeadCheck.evaluate(.init(status: 302, location: location), requestedOffset: 0, stored: stored)
                == .fail(reason: "HTTP 302 redirect to \(scheme): refused; only http and https are followed"))
        }
        // What AsyncHTTPClient did not follow for other reasons keeps its old verdict.
        for location in ["/relative", "https://elsewhere/x", "a/b:c", ""] {
            #expect(ResponseHeadCheck.evaluate(.init(status: 301, location: location), requestedOffset: 0, stored: stored)
                == .retry(reason: "unexpected HTTP 301", retryAfter: nil), "\(location)")
        }
    }

    @Test func twoHundredRestartsAtZeroWithTheNewValidators() {
        let head = ResponseHeadCheck.Head(status: 200, contentLength: 1000, etag: "W/\"weak\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(ResponseHeadCheck.evaluate(head, requestedOffset: 400, stored: stored)
            == .write(offset: 0, validators: TransferValidators(strongETag: nil, lastModified: "Sun, 06 Nov 1994 08:49:37 GMT", totalLength: 1000)))
    }

    @Test func partialAcceptedOnlyAtTheOffsetWithTheKnownLength() {
        func check(_ range: String?, etag: String? = "\"a\"", offset: Int64 = 400, stored: TransferValidators? = nil) -> ResponseHeadCheck {
            ResponseHeadCheck.evaluate(.init(status: 206, contentRange: range, etag: etag), requestedOffset: offset, stored: stored ?? self.stored)
        }
        #expect(check("bytes 400-999/1000") == .write(offset: 400, validators: stored))
        #expect(check("bytes 401-999/1000").isRestart)
        #expect(check("bytes 400-999/1001").isRestart)
        #expect(check("bytes 400-999/*").isRestart)
        #expect(check(nil).isRestart)
        #expect(check("bytes 400-999/1000", etag: "\"b\"").isRestart)
        #expect(check("bytes 0-999/1000", offset: 0).isRestart)
        // Issue 32: a length not known before (a chunked first answer) is learnt from the 206.
        #expect(check("bytes 400-999/1000", stored: TransferValidators(strongETag: "\"a\""))
            == .write(offset: 400, validators: stored))
        #expect(check("bytes 400-999/*", stored: TransferValidators(strongETag: "\"a\"")).isRestart)
    }

    @Test func fourSixteenCompleteOnlyWhenTheLengthIsWhatWeHave() {
        func check(_ range: String?, offset: Int64) -> ResponseHeadCheck {
            ResponseHeadCheck.evaluate(.init(status: 416, contentRange: range), requestedOffset: offset, stored: stored)
        }
        #expect(check("bytes */1000", offset: 1000) == .alreadyComplete)
        #expect(check("bytes */1007", offset: 1000).isRestart)
        #expect(check("bytes */1000", offset: 400).isRestart)
        #expect(check(nil, offset: 1000).isRestart)
        // Issue 32: with no length known before, L equal to the bytes held is complete too.
        #expect(ResponseHeadCheck.evaluate(.init(status: 416, contentRange: "bytes */1000"), requestedOffset: 1000,
                                           stored: TransferValidators(strongETag: "\"a\"")) == .alreadyComplete)
    }

    @Test func statusClasses() {
        func check(_ status: Int, retryAfter: String? = nil) -> ResponseHeadCheck {
            ResponseHeadCheck.evaluate(.init(status: status, retryAfter: retryAfter), requestedOffset: 0, stored: TransferValidators())
        }
        #expect(check(404) == .fail(reason: "HTTP 404"))
        #expect(check(403) == .fail(reason: "HTTP 403"))
        #expect(check(408) == .retry(reason: "HTTP 408", retryAfter: nil))
        #expect(check(429, retryAfter: "7") == .retry(reason: "HTTP 429", retryAfter: "7"))
        #expect(check(503, retryAfter: "120") == .retry(reason: "HTTP 503", retryAfter: "120"))
        #expect(check(304) == .retry(reason: "unexpected HTTP 304", retryAfter: nil))
        let gzip = ResponseHeadCheck.evaluate(.init(status: 200, contentEncoding: "gzip"), requestedOffset: 0, stored: TransferValidators())
        #expect(gzip == .retry(reason: "unexpected Content-Encoding gzip", retryAfter: nil))
    }
}

extension ResponseHeadCheck {
    var isRestart: Bool { if case .restart = self { true } else { false } }
}

@Suite struct RetryAfterTests {
    @Test func deltaSecondsAndTheThreeDateForms() {
        #expect(RetryAfter.delay("120", now: 0) == .seconds(120))
        let date = 784_111_777.0  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == date)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == date)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == date)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:51:37 GMT", now: date) == .seconds(120))
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: date + 50) == .zero)
        #expect(RetryAfter.delay("soon", now: 0) == nil)
        #expect(RetryAfter.delay("-5", now: 0) == nil)
    }
}

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy()
    let none = TransferAttemptResult(outcome: .retry(reason: "reset", retryAfter: nil), durableBytes: 0, validators: TransferValidators(), progressed: false)

    @Test func exponentialFromThirtySecondsCappedAtFiveHoursWithJitter() {
        #expect(policy.backoff(attempt: 1, random: 0.5) == .seconds(30))
        #expect(policy.backoff(attempt: 2, random: 0.5) == .seconds(60))
        #expect(policy.backoff(attempt: 4, random: 0.5) == .seconds(240))
        #expect(policy.backoff(attempt: 12, random: 0.5) == .seconds(18_000))
        #expect(policy.backoff(attempt: 1_000, random: 0.5) == .seconds(18_000))
        #expect(abs(policy.backoff(attempt: 1, random: 0).inSeconds - 24) < 1e-9)
        #expect(abs(policy.backoff(attempt: 1, random: 1).inSeconds - 36) < 1e-9)
    }

    @Test func retryAfterIsClampedAndWins() {
        func next(_ header: String) -> RetryPolicy.Decision {
            var result = none
            result.outcome = .retry(reason: "HTTP 503", retryAfter: header)
            return policy.decide(after: result, attemptsWithoutProgress: 0, now: 1000, deadline: 1e12, random: 0.5)
        }
        #expect(next("120") == .retry(at: 1120, attemptsWithoutProgress: 1))
        #expect(next("1") == .retry(at: 1030, attemptsWithoutProgress: 1))
        #expect(next("999999999") == .retry(at: 1000 + 86_400, attemptsWithoutProgress: 1))
        #expect(next("Thu, 01 Jan 1970 00:20:00 GMT") == .retry(at: 1200, attemptsWithoutProgress: 1))
    }

    @Test func failsAfterFiveAttemptsWithoutProgressAndProgressResets() {
        #expect(policy.decide(after: none, attemptsWithoutProgress: 3, now: 0, deadline: 1e12, random: 0.5)
            == .retry(at: 240, attemptsWithoutProgress: 4))
        guard case .failed = policy.decide(after: none, attemptsWithoutProgress: 4, now: 0, deadline: 1e12, random: 0.5) else {
            Issue.record("fifth attempt without progress did not fail")
            return
        }
        var progressed = none
        progressed.progressed = true
        #expect(policy.decide(after: progressed, attemptsWithoutProgress: 4, now: 0, deadline: 1e12, random: 0.5)
            == .retry(at: 30, attemptsWithoutProgress: 0))
    }

    @Test func deadlineFatalAndSuspendedOutcomes() {
        guard case .failed = policy.decide(after: none, attemptsWithoutProgress: 0, now: 0, deadline: 10, random: 0.5) else {
            Issue.record("retry past the deadline did not fail")
            return
        }
        var fatal = none
        fatal.outcome = .failed(reason: "HTTP 404")
        #expect(policy.decide(after: fatal, attemptsWithoutProgress: 0, now: 0, deadline: 1e12, random: 0.5) == .failed(reason: "HTTP 404"))
        var slow = none
        slow.outcome = .suspended(reason: "slow")
        #expect(policy.decide(after: slow, attemptsWithoutProgress: 2, now: 0, deadline: 1e12, random: 0.5)
            == .suspend(at: 60, attemptsWithoutProgress: 2))
        var done = none
        done.outcome = .completed
        #expect(policy.decide(after: done, attemptsWithoutProgress: 2, now: 0, deadline: 1e12, random: 0.5) == .completed)
    }
}

@Suite struct ThroughputMeterTests {
    @Test func tripsOnlyAfterAWholeWindowBelowTheFloor() {
        var meter = ThroughputMeter(floor: 1024, window: .seconds(30))
        do { let tripped = meter.record(time: 10, bytes: 0); #expect(!tripped) }
        do { let tripped = meter.record(time: 29, bytes: 100); #expect(!tripped) }
        do { let tripped = meter.record(time: 30, bytes: 100); #expect(tripped) }
        var fast = ThroughputMeter(floor: 1024, window: .seconds(30))
        for second in 1...90 {
            let tripped = fast.record(time: Double(second), bytes: Int64(second) * 2048)
            #expect(!tripped)
        }
        // A stall after a fast start trips once the window holds only the stall.
        var stalled = ThroughputMeter(floor: 1024, window: .seconds(2))
        do { let tripped = stalled.record(time: 1, bytes: 10_000); #expect(!tripped) }
        do { let tripped = stalled.record(time: 2, bytes: 10_000); #expect(!tripped) }
        do { let tripped = stalled.record(time: 3, bytes: 10_000); #expect(tripped) }
    }
}
