import NIOCore
import NIOPosix

/// The event loops of a group, in order, and which of them the current thread runs: how both
/// roads to the network tell a caller on one of their loops (a task on
/// ``CourierClient/makeTaskExecutor()``) from a caller elsewhere.
struct GroupLoops: Sendable {
    /// Every loop of the group.
    let all: [any EventLoop]

    init(_ group: any EventLoopGroup) {
        var loops: [any EventLoop] = []
        for loop in group.makeIterator() { loops.append(loop) }
        all = loops
    }

    /// The position of the loop the current thread runs, when it is one of these.
    var currentIndex: Int? {
        guard let current = MultiThreadedEventLoopGroup.currentEventLoop else { return nil }
        return all.firstIndex { $0 === current }
    }

    /// The loop the current thread runs, when it is one of these.
    var current: (any EventLoop)? {
        currentIndex.map { all[$0] }
    }
}
