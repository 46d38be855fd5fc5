import JouleWire

/// Why a `status --json` object (a daemon's `GetStatus` reply) could not be read back: the
/// key, as a path like `batteries[1].percentage`, and what was wrong with it.
public typealias StatusReportDecodingError = JSONDecodingError
