import Courier
import CourierTesting
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import Testing

/// Restartable, seekable and non-restartable bodies on the one request path: a body that can
/// be written again follows what needs it again (a 307, a challenge, a retry); one that cannot
/// is written once, and the response that would need it again is delivered as it is.
@Suite("Restartable and non-restartable request bodies")
struct RequestBodyRestartabilityTests {
    enum Kind: String, CaseIterable, Sendable {
        case restartable, seekable, nonrestartable
    }

    /// A body of `text` of `kind`, which counts how often it was written and the offsets it
    /// was asked to start from.
    private func body(_ kind: Kind, _ text: String, writes: NIOLockedValueBox<[Int64]>) -> CourierRequestBody {
        let bytes = Data(text.utf8)
        switch kind {
        case .restartable:
            return .restartable(knownLength: Int64(bytes.count)) { writer in
                writes.withLockedValue { $0.append(0) }
                try await writer.write(bytes)
                return nil
            }
        case .seekable:
            return .seekable(knownLength: Int64(bytes.count)) { offset, writer in
                writes.withLockedValue { $0.append(offset) }
                try await writer.write(bytes.dropFirst(Int(offset)))
                return nil
            }
        case .nonrestartable:
            return .nonrestartable(knownLength: Int64(bytes.count)) { writer in
                writes.withLockedValue { $0.append(0) }
                try await writer.write(bytes)
                return nil
            }
        }
    }

    private func request(_ method: HTTPRequest.Method, _ server: TestServer, _ pathAndQuery: String) -> HTTPRequest {
        HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(server.port)", path: pathAndQuery)
    }

    @Test("a 307 is followed with the body written again, or delivered when the body cannot be", arguments: Kind.allCases)
    func temporaryRedirect(kind: Kind) async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let writes = NIOLockedValueBox<[Int64]>([])
                let target = request(.post, server, "/redirect-to?url=/post&status_code=307")
                let (status, echoed) = try await client.perform(request: target, body: body(kind, "payload", writes: writes)) { response, body in
                    (response.status.code, try await body.collect(upTo: 65536) { String(decoding: $0, as: UTF8.self) }.0)
                }
                if kind == .nonrestartable {
                    #expect(status == 307)
                    #expect(writes.withLockedValue { $0 } == [0])
                    #expect(server.receivedRequests.count == 1)
                } else {
                    #expect(status == 200)
                    #expect(echoed.contains("payload"))
                    #expect(writes.withLockedValue { $0 } == [0, 0])
                }
            }
        }
    }

    @Test("a challenge is answered with the body written again, or delivered when the body cannot be", arguments: Kind.allCases)
    func challenge(kind: Kind) async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let writes = NIOLockedValueBox<[Int64]>([])
                var options = CourierRequestOptions()
                options.credential = .password(user: "user", password: "secret")
                let target = request(.put, server, "/digest-auth/auth/user/secret")
                let status = try await client.perform(request: target, body: body(kind, "payload", writes: writes), options: options) { response, _ in
                    response.status.code
                }
                #expect(status == (kind == .nonrestartable ? 401 : 200))
                #expect(writes.withLockedValue { $0.count } == (kind == .nonrestartable ? 1 : 2))
            }
        }
    }

    @Test("a retryable status is retried with the body written again, or delivered when the body cannot be", arguments: Kind.allCases)
    func retry(kind: Kind) async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let writes = NIOLockedValueBox<[Int64]>([])
                var options = CourierRequestOptions()
                options.retryPolicy = CourierRetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1))
                let target = request(.put, server, "/flaky?failures=1&status=503&key=\(kind.rawValue)")
                let status = try await client.perform(request: target, body: body(kind, "payload", writes: writes), options: options) { response, _ in
                    response.status.code
                }
                #expect(status == (kind == .nonrestartable ? 503 : 200))
                #expect(writes.withLockedValue { $0.count } == (kind == .nonrestartable ? 1 : 2))
            }
        }
    }

    @Test("a request without scheme and authority goes to its path under the base URL")
    func relativeToTheBaseURL() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let relative = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/conformance/identity")
                let text = try await client.perform(request: relative) { _, body in
                    try await body.collect(upTo: 1024) { String(decoding: $0, as: UTF8.self) }.0
                }
                #expect(text == "TEST\n")
            }
        }
    }

    @Test("a scheme without an authority is refused before anything is sent")
    func schemeWithoutAuthority() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let broken = HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/get")
                let error = await #expect(throws: CourierError.self) {
                    try await client.perform(request: broken) { _, _ in }
                }
                #expect(error?.kind == .invalidURL)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }
}
