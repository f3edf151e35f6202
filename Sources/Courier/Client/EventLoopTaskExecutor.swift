import NIOCore
import NIOPosix

/// Runs Swift tasks on one of the event loops that Courier's default transport reads and
/// writes its connections on.
///
/// An awaited response is received on an event loop; a task that runs on the cooperative
/// pool is then handed from that thread to a pool thread, and its next request back to the
/// loop. A task that runs here stays on the loop: the request starts on a connection of that
/// loop and the response resumes the task on the same thread.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
