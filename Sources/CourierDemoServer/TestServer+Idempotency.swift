import Foundation
import NIOCore
import NIOHTTP1

extension TestServerRoutes {
    /// `/idempotent[/...]?delay=S&gate=NAME`, any method: a server that honours
    /// `Idempotency-Key`. The first request with a key applies it (see ``IdempotencyLedger``)
    /// and answers 201 after `S` seconds (default 0), or, with `gate`, once the test opens the
    /// gate NAME (see ``TestServer/openGate(_:)``); a request with the same key within those `S`
    /// seconds gets 409, and later ones get the same 201 again, with `Idempotent-Replayed: true`. Without a
    /// key: 400.
    static func idempotent(_ request: TestRequest) -> TestResponse {
        guard let key = request.header("Idempotency-Key"), !key.isEmpty else {
            return .error(.badRequest, "an Idempotency-Key header is required")
        }
        let delay = request.queryValue("delay").flatMap { Double($0) } ?? 0
        switch request.ledger.receive(key: key, path: String(request.path), body: Data(request.body), delay: delay) {
        case .busy:
            return .error(.conflict, "a request with this Idempotency-Key is still being processed")
        case .applied(let entry):
            var response = answer(key: key, entry: entry)
            response.delay = .milliseconds(Int64(delay * 1000))
            response.gate = request.queryValue("gate")
            return response
        case .replay(let entry):
            var response = answer(key: key, entry: entry)
            response.headers.add(name: "Idempotent-Replayed", value: "true")
            return response
        }
    }

    private static func answer(key: String, entry: IdempotencyLedger.Entry) -> TestResponse {
        .json(
            .object([("key", .string(key)), ("order", .int(Int64(entry.order))), ("path", .string(entry.path))]),
            status: .created
        )
    }
}
