import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

extension AsyncHTTPClientTransport {
    nonisolated(nonsending) public func stream<Result: Sendable>(
        _ request: HTTPRequest,
        deadline: ContinuousClock.Instant?,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        if request.collectsResponseBody {
            // The client reads the body whole: the collecting delegate does it on the loop,
            // with one wake-up of the caller for the whole response.
            return try await body(StreamedResponse(whole: try await send(request, deadline: deadline)))
        }
        let start = ContinuousClock.now
        let (ahcRequest, regions) = try makeRequest(request)
        let handoff = BodyHandoff()
        let watch = watchdogs?.makeWatch()
        let nioDeadline = deadline.map { NIODeadline.now() + .nanoseconds(($0 - start).nanoseconds) }
        let route = clients.route(to: request.url)
        let task = route.client.execute(
            request: ahcRequest, delegate: StreamingDelegate(handoff: handoff, regions: regions, watch: watch),
            eventLoop: route.preference, deadline: nioDeadline, logger: logger
        )
        let watchdog = watchdogs?.on(task.eventLoop)
        if let watch, let watchdog {
            watchdog.start(watch) { task.fail(reason: HTTPClientError.readTimeout) }
        }
        task.futureResult.whenComplete { [clients] outcome in
            clients.release(route)
            if let watch { watchdog?.end(watch) }
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
private final class StreamingDelegate: SendReporting, Sendable {
    typealias Response = Void
    let handoff: BodyHandoff
    let regions: SentRegions?
    let watch: ReadWatchdog.Watch?

    init(handoff: BodyHandoff, regions: SentRegions?, watch: ReadWatchdog.Watch?) {
        self.handoff = handoff
        self.regions = regions
        self.watch = watch
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        watch?.heard()
        handoff.receive(head)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let taken = handoff.offer(buffer, on: task.eventLoop)
        guard let watch else { return taken }
        // Nothing more is read until the reader takes this part: the silence is the reader's.
        watch.pause()
        taken.whenComplete { _ in watch.resume() }
        return taken
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {}

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}
}
