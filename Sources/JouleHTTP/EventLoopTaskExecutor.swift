import NIOCore

/// Runs a task's jobs on one NIO event loop. An attempt that prefers the loop of its own
/// connection consumes the response body where NIO reads it: each chunk is handed over and the
/// next read requested on the same thread, instead of a futex wakeup of a pool thread and an
/// eventfd wakeup of the loop per chunk (AsyncHTTPClient buffers one chunk at most).
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
