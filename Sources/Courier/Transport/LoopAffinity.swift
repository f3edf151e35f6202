import AsyncHTTPClient
import NIOCore
import NIOPosix

/// Chooses where AsyncHTTPClient runs a request's callbacks.
///
/// A caller that runs on one of the group's event loops (a task whose executor preference is
/// that loop) keeps its loop, so that the response resumes it without a thread hop. Any
/// other request states no preference: the pool hands it an idle connection on whichever
/// loop owns it, and the callbacks run there, so that none hops between loops. Naming a loop
/// for such a request would make every callback hop whenever the idle connection lives on
/// another loop.
struct LoopAffinity: Sendable {
    private let loops: [any EventLoop]

    init(group: any EventLoopGroup) {
        var loops: [any EventLoop] = []
        for loop in group.makeIterator() { loops.append(loop) }
        self.loops = loops
    }

    /// The preference for a request sent from the current thread.
    func preference() -> HTTPClient.EventLoopPreference {
        guard let current = MultiThreadedEventLoopGroup.currentEventLoop,
            loops.contains(where: { $0 === current })
        else { return .indifferent }
        return .delegate(on: current)
    }
}
