import JouleHardware

/// The engine behind `joule beacons record`: scans on a transport and writes every event the
/// controller sends to a btsnoop file (datalink 1002), or converts a capture of any supported
/// datalink to one. It stops at the duration (measured on the events' own time), when the
/// transport's events end (`stopEvents()` from a signal), or when its task is cancelled.
public struct BeaconRecorder {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case capture(BTSnoopError)
        case write(HardwareError)
        case transport(HCITransportError)

        public var description: String {
            switch self {
            case .capture(let error): "\(error)"
            case .write(let error): "\(error)"
            case .transport(let error): "\(error)"
            }
        }
    }

    public let writer: BTSnoopWriter
    /// Stop after this long; nil: until the events end.
    public var duration: Duration?

    public init(writer: BTSnoopWriter, duration: Duration? = nil) {
        self.writer = writer
        self.duration = duration
    }

    /// Scans at `duty` and records until the duration has passed since `start` (Unix µs, the
    /// transport's clock) or the events end. The radio is off again on return, error or not;
    /// the transport stays open for the caller to close.
    public func record(commander: ScanCommander, duty: ScanDuty, start: Int64) async throws(Failure) {
        var commander = commander
        let transport = commander.transport
        let ended: Result<Void, Failure> = await withTaskCancellationHandler {
            do throws(Failure) {
                do throws(HCITransportError) { try await commander.apply(.scanning(duty)) } catch { throw .transport(error) }
                while true {
                    let next: HCIEventRecord?
                    do throws(HCITransportError) { next = try await transport.nextEvent() } catch { throw .transport(error) }
                    guard let record = next else { break }
                    guard let time = record.timestampMicros else { continue }
                    if let duration, time - start >= BeaconTime.micros(duration) { break }
                    guard !record.bytes.isEmpty else { continue }
                    let written: Result<Void, HardwareError> = record.bytes.withUnsafeBytes { raw in
                        do throws(HardwareError) {
                            return .success(try writer.write(type: .event, received: true, payload: raw, timestampMicros: time))
                        } catch { return .failure(error) }
                    }
                    do throws(HardwareError) { try written.get() } catch { throw .write(error) }
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        } onCancel: {
            transport.stopEvents()
        }
        try? await commander.apply(.off)
        try ended.get()
    }

    /// Copies a capture's packets to the writer, up to the duration after its first plausible
    /// timestamp. Returns why the capture ended early, if it did.
    public func convert(capture path: String) throws(Failure) -> BTSnoopWarning? {
        let reader: BTSnoopReader
        do throws(BTSnoopError) { reader = try BTSnoopReader(path: path) } catch { throw .capture(error) }
        var start: Int64?
        while let record = reader.next() {
            guard record.type != .other, let time = record.timestampMicros else { continue }
            if BeaconTime.isPlausible(time) {
                start = start ?? time
                if let duration, let start, time - start > BeaconTime.micros(duration) { break }
            }
            do throws(HardwareError) {
                try writer.write(type: record.type, received: record.received, payload: record.payload, timestampMicros: time)
            } catch { throw .write(error) }
        }
        return reader.warning
    }
}
