import Foundation

/// Real Prometheus peers for the metrics tests, sharing no code with joule: python3's
/// `prometheus_client` (Debian's python3-prometheus-client) to scrape over HTTP and parse the
/// text format, and `promtool check metrics` (from Debian's prometheus package, unpacked by
/// scripts/fetch-promtool.sh) to lint it. Each runs as a process on a thread of its own, never
/// on a cooperative one.
public enum PrometheusTools {
    /// One parsed sample: its name (with `_total` for counters), labels and value.
    public struct Sample: Sendable, Hashable, CustomStringConvertible {
        public var name: String
        public var labels: [String: String]
        public var value: Double

        public init(name: String, labels: [String: String], value: Double) {
            self.name = name
            self.labels = labels
            self.value = value
        }

        public var description: String {
            let list = labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",")
            return "\(name){\(list)} \(value)"
        }
    }

    /// One family as prometheus_client reads it (a counter's name without `_total`).
    public struct Family: Sendable, Hashable {
        public var name: String
        public var type: String
        public var help: String
        public var samples: [Sample]
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static let python = "/usr/bin/python3"

    /// Whether prometheus_client imports (checked once, on a thread of its own:
    /// `.enabled { await PrometheusTools.hasPythonClient }`).
    public static var hasPythonClient: Bool {
        get async { await pythonClient.value }
    }

    private static let pythonClient = Task {
        (try? await run(python, ["-c", "import prometheus_client.parser"], input: nil))?.status == 0
    }

    /// promtool: `$JOULE_PROMTOOL`, else one on PATH, else the one fetch-promtool.sh unpacked
    /// into .vm-cache; nil when there is none.
    public static func promtool(packageRoot: URL) -> String? {
        var candidates: [String] = []
        if let named = ProcessInfo.processInfo.environment["JOULE_PROMTOOL"], !named.isEmpty { candidates.append(named) }
        candidates += ["/usr/bin/promtool", packageRoot.appendingPathComponent(".vm-cache/promtool/root/usr/bin/promtool").path]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Parses `text` with prometheus_client's text parser; throws its complaint.
    public static func parse(_ text: String) async throws -> [Family] {
        let script = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            out = [{"name": f.name, "type": f.type, "help": f.documentation,
                    "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
                   for f in text_string_to_metric_families(sys.stdin.read())]
            json.dump(out, sys.stdout)
            """
        let result = try await run(python, ["-c", script], input: text)
        guard result.status == 0 else { throw Failure(description: "prometheus_client refused the text: \(result.output)") }
        return try decode(result.output)
    }

    /// GETs `url` with Python's urllib (a client of its own), and parses the body with
    /// prometheus_client; returns the Content-Type, the text and the families.
    public static func scrape(_ url: String) async throws -> (contentType: String, text: String, families: [Family]) {
        let script = """
            import json, sys, urllib.request
            with urllib.request.urlopen(sys.argv[1], timeout=20) as response:
                json.dump({"status": response.status, "type": response.headers["Content-Type"],
                           "text": response.read().decode("utf-8")}, sys.stdout)
            """
        let result = try await run(python, ["-c", script, url], input: nil)
        guard result.status == 0,
              let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
              let text = object["text"] as? String
        else { throw Failure(description: "scraping \(url) failed: \(result.output)") }
        return (object["type"] as? String ?? "", text, try await parse(text))
    }

    /// Runs a Python script with the system interpreter (an HTTP client for the tests); its
    /// exit status and stdout (with stderr when it failed).
    public static func python(_ script: String, _ arguments: [String] = []) async throws -> (status: Int32, output: String) {
        try await run(python, ["-c", script] + arguments, input: nil)
    }

    /// `promtool check metrics` on `text`: its exit status and what it said (lint problems).
    public static func check(_ text: String, promtool: String) async throws -> (status: Int32, output: String) {
        try await run(promtool, ["check", "metrics"], input: text, mergeErrors: true)
    }

    static func decode(_ json: String) throws -> [Family] {
        guard let list = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else {
            throw Failure(description: "prometheus_client's families did not decode: \(json)")
        }
        return list.map { family in
            let samples = (family["samples"] as? [[String: Any]] ?? []).map { sample in
                Sample(
                    name: sample["name"] as? String ?? "", labels: sample["labels"] as? [String: String] ?? [:],
                    value: (sample["value"] as? NSNumber)?.doubleValue ?? .nan)
            }
            return Family(
                name: family["name"] as? String ?? "", type: family["type"] as? String ?? "", help: family["help"] as? String ?? "",
                samples: samples)
        }
    }

    /// Runs `executable` on a thread of its own, feeding `input` to its stdin; `output` is
    /// stdout, then stderr when it failed; with `mergeErrors` both always, as written
    /// (promtool speaks on stderr).
    static func run(_ executable: String, _ arguments: [String], input: String?, mergeErrors: Bool = false) async throws
        -> (status: Int32, output: String)
    {
        let result = try await Program.run(executable, arguments, input: input, mergingErrors: mergeErrors)
        return (result.status, result.status == 0 ? result.stdout : result.stdout + result.stderr)
    }
}
