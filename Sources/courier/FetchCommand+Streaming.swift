import Courier
import Foundation

extension FetchCommand {
    /// Sends the request and writes the body to stdout or `-o` as it arrives, in bounded
    /// memory: the head first with `--include`.
    func runStreaming(configuration: ClientConfiguration, request: Request<Response>, out: Output) async throws {
        let writer = try BodyWriter(path: output, out: out, limit: limit.maxFilesize)
        let include = self.include
        let head: Response
        do {
            head = try await ClientOptions.withClient(configuration: configuration) { client in
                try await client.stream(request) { streamed in
                    try writer.check(announcedLength: streamed.head.headers["Content-Length"])
                    if include { out.write(FetchCommand.headText(streamed.head)) }
                    for try await piece in streamed.body { try writer.write(piece) }
                    return streamed.head
                }
            }
            try writer.finish()
        } catch let error as CourierError {
            writer.abandon()
            // Refused credentials: show the final 401's head as any response, then fail.
            if error.kind == .authenticationFailed, include, let refused = error.response { out.write(FetchCommand.headText(refused)) }
            throw CommandFailure(error)
        } catch {
            writer.abandon()
            throw error
        }
        if fail && head.status >= 400 {
            throw CommandFailure(.httpError, "the server answered \(head.status) \(head.reasonPhrase) for \(head.url.absoluteString)")
        }
    }
}
