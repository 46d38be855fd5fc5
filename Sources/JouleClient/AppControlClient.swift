import Foundation
import JouleWire
import JouleHardware
import JouleEnergy
import JouleApps

/// `joule app`'s way to the `joule run`s of this user when no daemon supervises: their
/// control sockets in the runtime directory's `apps/`.
package struct AppControlClient: Sendable {
    package let directory: String

    package init(runtime: RuntimeDirectory) { directory = runtime.file("apps") }

    /// The apps with a control socket, by name, sorted.
    package func names() -> [String] {
        guard let entries = try? FileSystem.listDirectory(directory) else { return [] }
        return entries.filter { $0.hasSuffix(".control") }.map { String($0.dropLast(".control".count)) }.sorted()
    }

    private func connect(_ name: String) throws(AppSupervisorError) -> SeqPacketClient {
        guard AppSupervisorError.isValidName(name), names().contains(name),
              let client = try? SeqPacketClient(path: directory + "/" + name + ".control") else {
            throw .unknownApp(name, known: names())
        }
        return client
    }

    /// Asks app `name` to move; throws what it answered.
    package func transition(_ request: AppLifecycleRequest, app name: String) throws(AppControlError) {
        let client: SeqPacketClient
        do {
            client = try connect(name)
        } catch {
            throw .supervisor(error)
        }
        let answer = try exchange(client, .transition(request))
        if let error = answer["error"]?.stringValue { throw .refused(error) }
    }

    /// Every app's list entry, as the JSON object `joule app list --json` prints.
    package func list() -> [JSONValue] {
        names().flatMap { name -> [JSONValue] in
            guard let client = try? SeqPacketClient(path: directory + "/" + name + ".control"),
                  let answer = try? exchange(client, .list) else { return [] }
            return answer["apps"]?.arrayValue ?? []
        }
    }

    private func exchange(_ client: SeqPacketClient, _ message: AppControlMessage) throws(AppControlError) -> JSONValue {
        do {
            try client.send(message.encoded)
            guard let bytes = try client.receive(limit: AppControlMessage.maxBytes, timeout: .seconds(5)) else {
                throw AppControlError.noAnswer(client.path)
            }
            return try JSONParser.parse(bytes)
        } catch let error as AppControlError {
            throw error
        } catch {
            throw .io("\(client.path): \(error)")
        }
    }

    /// The event lines of every app running now (as JSON objects), until each one exits.
    package func events() -> AsyncStream<JSONValue> {
        let (stream, continuation) = AsyncStream.makeStream(of: JSONValue.self)
        let names = names()
        let remaining = ManagedCounter(names.count)
        if names.isEmpty { continuation.finish() }
        for name in names {
            // One blocking reader per app, on its own thread.
            let thread = Thread { [directory] in
                defer { if remaining.decrement() == 0 { continuation.finish() } }
                guard let client = try? SeqPacketClient(path: directory + "/" + name + ".control") else { return }
                guard (try? client.send(AppControlMessage.events.encoded)) != nil,
                      (try? client.receive(limit: AppControlMessage.maxBytes, timeout: .seconds(5))) != nil else { return }
                while let bytes = try? client.receive(limit: AppControlMessage.maxBytes, timeout: nil) {
                    if let line = try? JSONParser.parse(bytes) { continuation.yield(line) }
                }
            }
            thread.start()
        }
        return stream
    }
}
