import AsyncHTTPClient
import Foundation
import JouleHardware
import JouleTransferQueue
import NIOCore
import NIOHTTP1

/// One attempt of a PUT or POST whose body is a local file (issue 13, uploads). The file is
/// opened once per attempt, sized with fstat for Content-Length and streamed in pieces. Plain
/// HTTP cannot resume an upload, so every attempt sends from byte 0 and only a 2xx counts as
/// progress. Redirects are followed here, not by AsyncHTTPClient: it turns a POST into a GET on
/// 301/302 and cannot replay a streamed body, so only 307/308 (which keep the method and body)
/// are followed, up to `maxRedirects`, and 301/302/303 fail rather than silently drop the body.
public final class HTTPUploader: Sendable {
    public let tuning: TransferTuning
    private let client: HTTPClient

    public init(tuning: TransferTuning = TransferTuning()) {
        self.tuning = tuning
        let configuration = TransferClientConfiguration.make(redirects: .disallow)
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Closes the connection pool; call once, after the last attempt.
    public func shutdown() async throws { try await client.shutdown() }

    /// Runs one attempt; the throughput floor applies to the bytes handed to the connection.
    public func attempt(_ request: UploadRequest) async -> TransferAttemptResult {
        let counter = ByteCounter()
        return await ThroughputWatchdog.run(tuning: tuning, counter: counter) {
            await self.run(request, counter: counter)
        }
    }

    /// The attempt itself; never throws: every failure becomes an outcome.
    private func run(_ request: UploadRequest, counter: ByteCounter) async -> TransferAttemptResult {
        // Nothing of a failed upload is kept by the server, so only completion is progress.
        func result(_ outcome: TransferOutcome, sent: Int64 = 0) -> TransferAttemptResult {
            TransferAttemptResult(outcome: outcome, durableBytes: sent, validators: TransferValidators(), progressed: outcome == .completed)
        }
        let method: HTTPMethod
        switch request.method {
        case .put: method = .PUT
        case .post: method = .POST
        case .get: return result(.failed(reason: "GET is a download, not an upload"))
        }
        let file: SourceFile
        let size: Int64
        do {
            file = try SourceFile(path: request.source, owner: request.owner)
            size = try file.size()
        } catch {
            return result(.failed(reason: "upload source: \(error)"))
        }
        var url = request.url
        var headers = HTTPHeaders()
        for field in request.headers where !["content-length", "transfer-encoding", "expect"].contains(field.name.lowercased()) {
            headers.add(name: field.name, value: field.value)
        }
        for _ in 0...max(0, tuning.maxRedirects) {
            var http = HTTPClientRequest(url: url)
            http.method = method
            http.headers = headers
            http.body = .stream(SourceFileBody(file: file, length: size, counter: counter), length: .known(size))
            do {
                // No overall deadline: the throughput watchdog ends attempts that stall.
                let response = try await client.execute(http, deadline: .distantFuture)
                let status = Int(response.status.code)
                let retryAfter = response.headers.first(name: "retry-after")
                switch status {
                case 200..<300:
                    return result(.completed, sent: size)
                case 307, 308:
                    guard let target = RedirectTarget(location: response.headers.first(name: "location"), from: url) else {
                        let scheme = ResponseHeadCheck.redirectScheme(response.headers.first(name: "location"))
                        return result(.failed(reason: scheme.map { "HTTP \(status) redirect to \($0): refused; only http and https are followed" }
                            ?? "HTTP \(status) without a usable http(s) Location"))
                    }
                    if !target.sameOrigin {
                        // As browsers and AsyncHTTPClient do: credentials stay with their origin.
                        for name in ["Authorization", "Proxy-Authorization", "Cookie", "Origin"] { headers.remove(name: name) }
                    }
                    url = target.url
                case 301, 302, 303:
                    return result(.failed(reason:
                        "HTTP \(status) redirect for a \(method.rawValue) upload: following it would resend as GET without the body; only 307/308 are followed"))
                case 408, 429, 500..<600:
                    return result(.retry(reason: "HTTP \(status)", retryAfter: retryAfter))
                case 400..<500:
                    return result(.failed(reason: "HTTP \(status)"))
                default:
                    return result(.retry(reason: "unexpected HTTP \(status)", retryAfter: retryAfter))
                }
            } catch let changed as SourceFileBody.Changed {
                return result(.retry(reason: changed.description, retryAfter: nil))
            } catch let error as HardwareError {
                return result(.failed(reason: "upload source: \(error)"))
            } catch {
                return result(.thrown(error, url: url, maxRedirects: tuning.maxRedirects))
            }
        }
        return result(.failed(reason: "more than \(tuning.maxRedirects) redirects"))
    }
}
