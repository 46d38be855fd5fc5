@testable import JouleWire
@testable import JouleHardware
@testable import JouleWorkloads
@testable import JouleApps
@testable import JouleTransferQueue
@testable import JouleDaemon

/// The daemon's YAML config (`/etc/joule/joule.yaml`, re-read on SIGHUP): anything but a
/// configuration or an error naming the file is a defect.
func fuzzDaemonConfiguration(_ bytes: [UInt8]) {
    do throws(ConfigurationError) {
        let configuration = try DaemonConfiguration.parse(yaml: String(decoding: bytes, as: UTF8.self), file: "fuzz.yaml")
        check(configuration.power.restorePercent > configuration.power.lowPercent, "lowPowerOffAt not above lowPowerAt")
    } catch {
        // An enforce policy it names is read too, and its errors say "(from fuzz.yaml:LINE: …)".
        check(error.description.contains("fuzz.yaml"), "error without the file: \(error)")
    }
}

/// One packet on the lifecycle socket, as each reader sees it: joule reading an app's request,
/// an app reading joule's (JouleWire's decoder, which JouleApplication reads with), and a
/// `joule run` control socket. What decodes must encode back to itself.
func fuzzLifecycle(_ bytes: [UInt8]) {
    if let request = try? LifecycleMessage.decodeRequest(bytes, length: bytes.count) {
        check(request.isRequest, "request decoded as \(request)")
        check((try? LifecycleMessage.decodeRequest(request.encoded)) == request, "request round trip \(request)")
    }
    if let message = try? LifecycleMessage.decodeFromJoule(bytes) {
        check(!message.isRequest, "joule's message decoded as \(message)")
        check((try? LifecycleMessage.decodeFromJoule(message.encoded)) != nil, "message round trip \(message)")
        if case .taskBegan(let id?, _) = message { check(id >= 1, "task id \(id)") }
    }
    if let control = try? AppControlMessage.decode(bytes, length: bytes.count) {
        check((try? AppControlMessage.decode(control.encoded)) == control, "control round trip \(control)")
    }
}

/// `Transfers1.Add`'s `a{sv}`, built from the bytes: mostly the known keys with values of any
/// type (variants nested, arrays of strings or numbers), sometimes other keys or another shape.
/// What decodes and validates must survive its own `busValue`.
func fuzzTransferRequest(_ bytes: [UInt8]) {
    var input = FuzzBytes(bytes)
    let value = input.byte() < 240 ? requestDictionary(&input, depth: 0) : busValue(&input, depth: 0)
    guard let request = try? TransferRequest(busValue: value) else { return }
    guard let valid = try? request.validated() else { return }
    check((try? TransferRequest(busValue: valid.busValue).validated()) == valid, "round trip of \(valid)")
}

private func requestDictionary(_ input: inout FuzzBytes, depth: Int) -> BusValue {
    var entries: [(String, BusValue)] = []
    for _ in 0..<Int(input.byte() % 20) where !input.isAtEnd {
        entries.append((input.word(TransferRequest.keys), busValue(&input, depth: depth + 1)))
    }
    return .variantDictionary(entries)
}

private func busValue(_ input: inout FuzzBytes, depth: Int) -> BusValue {
    let kinds = depth > 3 ? 8 : 12
    switch Int(input.byte()) % kinds {
    case 0: return .string(input.word(["https://example.org/f", "/tmp/f", "GET", "put", "high", "Accept: */*", String(repeating: "a", count: 64)]))
    case 1: return .bool(input.byte() & 1 == 1)
    case 2: return .double(Double(bitPattern: input.uint64()))
    case 3: return .int32(Int32(truncatingIfNeeded: input.int64()))
    case 4: return .uint64(input.uint64())
    case 5: return .int64(input.int64())
    case 6: return .objectPath("/org/joule/" + input.string().filter(\.isLetter))
    case 7: return .byte(input.byte())
    case 8: return .variant(busValue(&input, depth: depth + 1))
    case 9: return .array(elementSignature: "s", (0..<Int(input.byte() % 5)).map { _ in .string(input.string()) })
    case 10: return requestDictionary(&input, depth: depth)
    default: return .structure([busValue(&input, depth: depth + 1), busValue(&input, depth: depth + 1)])
    }
}
