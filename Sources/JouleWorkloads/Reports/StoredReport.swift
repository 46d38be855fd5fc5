/// A report found in a reports directory.
public struct StoredReport: Sendable, Equatable {
    public var report: ResourceReport
    public var textPath: String
    public var jsonPath: String

    public init(report: ResourceReport, textPath: String, jsonPath: String) {
        self.report = report
        self.textPath = textPath
        self.jsonPath = jsonPath
    }
}
