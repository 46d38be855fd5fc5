import Dispatch
import JouleWire

/// Runs async engine code from libFuzzer's synchronous callback: a task does the work and a
/// semaphore waits for it. Only for inputs that never wait on the wall clock (replays).
enum FuzzBlocking {
    static func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let result = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
