@testable import JouleTransferQueue
import JouleHTTP

/// Lines of the input become a response head: Content-Range, Retry-After, ETag, Last-Modified,
/// Location, the status and the offset asked for. Each parser alone, then the whole verdict.
func fuzzHTTPHead(_ bytes: [UInt8]) {
    let values = lines(bytes)
    func line(_ index: Int) -> String? { index < values.count ? values[index] : nil }
    let now = 1_700_000_000.0
    if let text = line(0), let range = ContentRange(text) {
        switch range {
        case .range(let first, let last, let length):
            check(first >= 0 && first <= last && (length.map { last < $0 } ?? true), "content range \(range)")
        case .unsatisfied(let length):
            check(length >= 0, "unsatisfied length \(length)")
        }
    }
    if let text = line(1), let delay = RetryAfter.delay(text, now: now) {
        check(delay >= .zero, "Retry-After \(delay)")
        let policy = RetryPolicy(), clamped = policy.clampRetryAfter(delay)
        check(clamped >= policy.tuning.retryAfterMin && clamped <= policy.tuning.retryAfterMax, "clamped \(clamped)")
    }
    let etag = line(2), lastModified = line(3)
    if let strong = TransferValidators.strong(etag) { check(strong.hasPrefix("\"") && strong.hasSuffix("\""), "etag") }
    if let date = lastModified.flatMap(HTTPDate.parse) { check(date.isFinite, "HTTP date \(date)") }
    if let target = RedirectTarget(location: line(4), from: "https://example.org:8443/dir/file?q=1") {
        let lower = target.url.lowercased()
        check(lower.hasPrefix("http://") || lower.hasPrefix("https://"), "redirect to \(target.url)")
    }
    let status = line(5).flatMap { Int($0) } ?? 206
    let offset = line(6).flatMap { Int64($0) } ?? 1000
    let stored = TransferValidators(strongETag: "\"v1\"", lastModified: lastModified, totalLength: line(7).flatMap { Int64($0) } ?? 5000)
    let head = ResponseHeadCheck.Head(
        status: status, contentRange: line(0), contentLength: line(7).flatMap { Int64($0) },
        contentEncoding: line(8), etag: etag, lastModified: lastModified, retryAfter: line(1))
    if case .write(let at, _) = ResponseHeadCheck.evaluate(head, requestedOffset: offset, stored: stored) {
        check(at == 0 || at == offset, "write at \(at) after asking for \(offset)")
    }
}
