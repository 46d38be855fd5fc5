import JouleWire
import JouleHardware

/// Serves the control socket of a `joule run` supervising on its own: transitions, the list
/// and the event stream, for `joule app` (see `AppControlMessage`).
package final class AppControlServer: Sendable {
    private let server: SeqPacketServer
    private let task: Task<Void, Never>
    /// Each events subscriber's forwarding task, by connection.
    private let watchers = Locked<[Int: Task<Void, Never>]>([:])
    /// The transition being answered, if any: a terminate ends the app, and the run may then
    /// finish before the answer is sent (`joule app terminate` read EOF as "no answer").
    private let answering = Locked<Task<Void, Never>?>(nil)

    package init(path: String, supervisor: AppSupervisor, log: @escaping @Sendable (String) -> Void) throws(HardwareError) {
        let server = try SeqPacketServer(path: path, mode: 0o600, limit: AppControlMessage.maxBytes)
        self.server = server
        let watchers = watchers, answering = answering
        task = Task {
            for await event in server.events {
                switch event {
                case .connected: break
                case .refused(let failure):
                    log("control socket: refused a client: \(failure)")
                case .closed(let id):
                    watchers.withLock { $0.removeValue(forKey: id) }?.cancel()
                case .packet(let id, let bytes, let length):
                    let message: AppControlMessage
                    do {
                        message = try AppControlMessage.decode(bytes, length: length)
                    } catch {
                        log("control connection \(id): \(error)")
                        server.send(AppControlMessage.error("\(error)"), to: id)
                        continue
                    }
                    switch message {
                    case .transition(let request):
                        // Made under the lock, so `finish` cannot miss it however soon the app ends.
                        let answer = answering.withLock { current in
                            let answer = Task {
                                let name = await supervisor.names.first ?? ""
                                do {
                                    try await supervisor.request(request, app: name)
                                    server.send(AppControlMessage.ok, to: id)
                                } catch {
                                    server.send(AppControlMessage.error("\(error)"), to: id)
                                }
                            }
                            current = answer
                            return answer
                        }
                        await answer.value
                        answering.withLock { $0 = nil }
                    case .list:
                        server.send(AppControlMessage.apps(await supervisor.list()), to: id)
                    case .events:
                        let stream = await supervisor.events()
                        server.send(AppControlMessage.ok, to: id)
                        let watcher = Task {
                            for await line in stream {
                                // A watcher that stops reading loses lines rather than stalling the app.
                                server.send(Array(line.json.serialized.utf8), to: id)
                            }
                            server.disconnect(id)
                        }
                        watchers.withLock { $0[id] = watcher }
                    }
                }
            }
            for watcher in watchers.withLock({ $0.values }) { watcher.cancel() }
        }
    }

    /// Stops once every subscriber has been sent what its stream still holds: call it after
    /// the supervisor's `finishEvents()`, or the last lines (`exited`) race the exit. Sends never
    /// block, so this does not wait on a client that stopped reading.
    package func finish() async {
        await answering.withLock { $0 }?.value
        for watcher in watchers.withLock({ Array($0.values) }) { await watcher.value }
        stop()
    }

    package func stop() {
        server.stop()
        task.cancel()
    }
}
