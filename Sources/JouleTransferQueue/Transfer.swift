#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JouleEnergy

/// One queued download or upload, as the daemon keeps it in `TransferStore`. Times are Unix
/// seconds (wall clock): they must mean the same after a reboot.
public struct Transfer: Sendable, Hashable, Identifiable {
    /// A random UUID, lowercase text.
    public var id: String
    /// The uid of the D-Bus caller that added it; only it or root may see or touch it.
    public var ownerUID: UInt32
    public var url: String
    public var method: TransferMethod
    public var headers: [TransferHeader]
    /// The file a download ends up at (written as `destination.part` first); nil for uploads.
    public var destination: String?
    /// The file an upload sends; nil for downloads.
    public var uploadSource: String?
    public var requirements: TransferRequirements
    public var priority: TransferPriority
    /// Transfers sharing a batch name start together once all of them are ready.
    public var batch: String?
    /// The expected SHA-256 of the whole body, lowercase hex.
    public var sha256: String?
    /// `/bin/sh -c` command run as the owner when the transfer finishes.
    public var onComplete: String?
    /// The Swift API's session identifier, so a program reconnecting after a restart finds
    /// its earlier transfers; nil for the CLI.
    public var sessionIdentifier: String?
    public var createdAt: Double
    /// Not before this (`--begin-after`); nil for at once.
    public var beginAfter: Double?
    /// Failed when not finished by then (created + timeout).
    public var deadline: Double
    public var validators: TransferValidators
    /// Bytes fsynced in the `.part` file (downloads) or acknowledged (uploads): after a crash
    /// the `.part` file is truncated back to this.
    public var durableBytes: Int64
    /// Attempts since the last progress; progress resets it.
    public var attemptsWithoutProgress: Int
    /// The last attempt's error, kept while retrying.
    public var lastError: String?
    public var state: TransferState

    public init(
        id: String = Transfer.newID(), ownerUID: UInt32, url: String, method: TransferMethod = .get,
        headers: [TransferHeader] = [], destination: String?, uploadSource: String? = nil,
        requirements: TransferRequirements = TransferRequirements(), priority: TransferPriority = .normal,
        batch: String? = nil, sha256: String? = nil, onComplete: String? = nil, sessionIdentifier: String? = nil,
        createdAt: Double, beginAfter: Double? = nil, deadline: Double,
        validators: TransferValidators = TransferValidators(), durableBytes: Int64 = 0,
        attemptsWithoutProgress: Int = 0, lastError: String? = nil, state: TransferState = .waiting(unmet: [])
    ) {
        self.id = id
        self.ownerUID = ownerUID
        self.url = url
        self.method = method
        self.headers = headers
        self.destination = destination
        self.uploadSource = uploadSource
        self.requirements = requirements
        self.priority = priority
        self.batch = batch
        self.sha256 = sha256
        self.onComplete = onComplete
        self.sessionIdentifier = sessionIdentifier
        self.createdAt = createdAt
        self.beginAfter = beginAfter
        self.deadline = deadline
        self.validators = validators
        self.durableBytes = durableBytes
        self.attemptsWithoutProgress = attemptsWithoutProgress
        self.lastError = lastError
        self.state = state
    }

    /// A fresh random (version 4) UUID in lowercase.
    public static func newID() -> String { RandomUUID.lowercase() }

    /// The default `timeout`: seven days, as NSURLSession's `timeoutIntervalForResource`.
    public static let defaultTimeout: Double = 604_800

    /// When the next attempt may start (`retrying`, or a timed `suspended`).
    public var nextAttempt: Double? { state.nextAttempt }

    /// The bytes left when the total is known.
    public var remainingBytes: Int64? { validators.totalLength.map { max(0, $0 - durableBytes) } }
}
