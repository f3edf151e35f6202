import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// A response delegate of ``AsyncHTTPClientTransport`` that reports what was sent: the parts
/// written, so that file regions are closed once the kernel has sent them, and the end of the
/// request, which starts the read-timeout clock.
protocol SendReporting: HTTPClientResponseDelegate {
    /// The file regions of the request's body, if it is sent that way.
    var regions: SentRegions? { get }
    /// The exchange's read-timeout clock, if the transport has a read timeout.
    var watch: ReadWatchdog.Watch? { get }
    /// Says when a streamed request body has gone whole.
    var sending: BodySending? { get }
}

extension SendReporting {
    func didSendRequestPart(task: HTTPClient.Task<Response>, _ part: IOData) {
        regions?.didSend(part)
    }

    func didSendRequest(task: HTTPClient.Task<Response>) {
        watch?.requestSent()
    }

    /// What the delegate returns for a response head it accepted: a success (below 300) is
    /// read only once a streamed request body has gone whole (see ``BodySending``). A later
    /// status stops the upload in AsyncHTTPClient, which closes the connection instead.
    func accepted(_ head: HTTPResponseHead, on loop: any EventLoop) -> EventLoopFuture<Void> {
        guard head.status.code < 300, let sending else { return loop.makeSucceededVoidFuture() }
        return sending.whenEnded(on: loop)
    }
}
