import NIOCore

/// Runs Swift tasks on a NIO event loop, so that a task awaiting network I/O resumes on the
/// loop that completed it instead of hopping to the cooperative pool.
final class EventLoopExecutor: TaskExecutor, @unchecked Sendable {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
