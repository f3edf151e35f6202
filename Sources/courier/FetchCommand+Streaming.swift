import Courier
import Foundation

extension FetchCommand {
    /// Sends the request and writes the body to stdout or the destination's file as it
    /// arrives, in bounded memory: the head first with `--include` or `--head` (where the body
    /// goes, as in curl), then `-w`'s text.
    func runStreaming(_ plan: FetchPlan.Made, started: ContinuousClock.Instant, out: Output) async throws {
        let destination = plan.destination
        let style = TerminalStyle(pretty: pretty, output: out)
        let writer = try BodyWriter(path: destination.path, out: out, limit: limit.maxFilesize, style: style, progressSince: client.silent ? nil : started)
        let printsHead = include || headOnly
        let writesBody = self.writesBody
        var request = plan.request
        // A body that takes long to send shows its own line on a stderr terminal, ended as
        // soon as the answer begins (or the command fails).
        let uploadLine =
            client.silent || request.body == nil || out.progress == nil
            ? nil : TransferProgressLine(output: out, quietUntil: started + BodyWriter.progressDelay)
        defer { uploadLine?.finishLine() }
        if let uploadLine { request.uploadProgress = { uploadLine.update($0) } }
        var head: CourierResponse
        var received: Int64
        do {
            (head, received) = try await ClientOptions.withClient(configuration: plan.configuration, transport: self.client.transport) { client in
                try await client.stream(request) { streamed in
                    uploadLine?.finishLine()
                    try dumpHead(of: streamed.head, to: out)
                    let writes = writesBody(streamed.head.status)
                    if writes { try writer.check(announcedLength: streamed.head.headers["Content-Length"]) }
                    if writes || printsHead, destination.isNamedByResponse, let path = try destination.path(for: streamed.head) {
                        writer.retarget(to: path)
                    }
                    if printsHead { try writer.writeHead(streamed.head) }
                    guard writes else { return (streamed.head, 0) }
                    writer.begin(streamed.head)
                    var received: Int64 = 0
                    for try await piece in streamed.body {
                        received += Int64(piece.count)
                        try writer.write(piece)
                    }
                    var head = streamed.head
                    head.trailers = streamed.body.trailers ?? Headers()
                    return (head, received)
                }
            }
            if writesBody(head.status) {
                // As curl does: the trailers, when the head is shown, after the body.
                try writer.finish(trailers: include ? head.trailers : nil)
            } else if printsHead {
                try writer.finish()
            } else {
                writer.abandon()
            }
        } catch let error as CourierError where error.kind == .authenticationFailed && error.response != nil {
            // Refused credentials, as in curl: the final 401 is the response.
            uploadLine?.finishLine()
            (head, received) = (error.response!, Int64(error.response!.body.count))
            do {
                try dumpHead(of: head, to: out)
                if printsHead { try writer.writeHead(head) }
                if writesBody(head.status) {
                    try writer.write(head.body)
                    try writer.finish()
                } else {
                    if printsHead { try writer.finish() } else { writer.abandon() }
                    received = 0
                }
            } catch {
                writer.abandon()
                throw error
            }
        } catch {
            writer.abandon()
            throw error
        }
        if let format = plan.writeOut {
            out.write(format.render(WriteOut.Values(head, bodyBytes: received, seconds: .now - started)))
        }
        try checkStatus(of: head)
    }
}
