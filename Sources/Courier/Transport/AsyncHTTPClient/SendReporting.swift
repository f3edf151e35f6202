import AsyncHTTPClient
import NIOCore

/// A response delegate of ``CourierAsyncHTTPClientTransport`` that reports what was sent: the parts
/// written, so that file regions are closed once the kernel has sent them, and the end of the
/// request, which starts the read-timeout clock.
protocol SendReporting: HTTPClientResponseDelegate {
    /// The file regions of the request's body, if it is sent that way.
    var regions: SentRegions? { get }
    /// The exchange's read-timeout clock, if the transport has a read timeout.
    var watch: ReadWatchdog.Watch? { get }
}

extension SendReporting {
    func didSendRequestPart(task: HTTPClient.Task<Response>, _ part: IOData) {
        regions?.didSend(part)
    }

    func didSendRequest(task: HTTPClient.Task<Response>) {
        watch?.requestSent()
    }
}
