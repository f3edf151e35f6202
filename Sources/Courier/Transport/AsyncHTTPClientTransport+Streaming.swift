import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

extension AsyncHTTPClientTransport {
    public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        deadline: ContinuousClock.Instant?,
        body: (StreamedResponse) async throws -> Result
    ) async throws -> Result {
        let start = ContinuousClock.now
        let (ahcRequest, regions) = try makeRequest(request)
        let handoff = BodyHandoff()
        let nioDeadline = deadline.map { NIODeadline.now() + .nanoseconds(($0 - start).nanoseconds) }
        let task = client.execute(
            request: ahcRequest, delegate: StreamingDelegate(handoff: handoff, regions: regions), eventLoop: affinity.preference(),
            deadline: nioDeadline, logger: logger
        )
        task.futureResult.whenComplete { outcome in
            regions?.close()
            handoff.end(outcome)
        }
        let url = request.url
        let timeout = request.timeout
        return try await withTaskCancellationHandler {
            defer {
                // Whatever the reader left unread is dropped with the connection.
                if handoff.close() { task.cancel() }
            }
            let head: HTTPResponseHead
            let firstByte: ContinuousClock.Instant
            do {
                (head, firstByte) = try await handoff.head()
            } catch {
                throw mapped(error, url: url, timeout: timeout)
            }
            var timing = Timing(start: start)
            timing.firstByte = firstByte
            let response = Response(
                status: Int(head.status.code),
                reasonPhrase: head.status.reasonPhrase,
                headers: Headers(head.headers.map { ($0.name, $0.value) }),
                url: url,
                timing: timing,
                request: request
            )
            let pieces = ResponseBodyStream {
                do {
                    return try await handoff.next().map(BodyHandoff.joined)
                } catch {
                    throw AsyncHTTPClientTransport.map(error, url: url, timeout: timeout)
                }
            }
            return try await body(StreamedResponse(head: response, body: pieces))
        } onCancel: {
            task.cancel()
        }
    }
}

/// Passes a response from AsyncHTTPClient to its reader.
///
/// AsyncHTTPClient calls a delegate on the request's event loop, one call at a time.
private final class StreamingDelegate: HTTPClientResponseDelegate, Sendable {
    typealias Response = Void
    let handoff: BodyHandoff
    let regions: SentRegions?

    init(handoff: BodyHandoff, regions: SentRegions?) {
        self.handoff = handoff
        self.regions = regions
    }

    func didSendRequestPart(task: HTTPClient.Task<Void>, _ part: IOData) {
        regions?.didSend(part)
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        handoff.receive(head)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        handoff.offer(buffer, on: task.eventLoop)
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {}

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}
}
