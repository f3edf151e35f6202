import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers

/// What the test server's Digest route answers once authenticated.
struct DigestResult: Decodable, Sendable, Equatable {
    let authenticated: Bool
    let user: String
    let qop: String
    let nc: Int
}

extension TestServer {
    /// The requests received for paths starting with `prefix`.
    func requests(under prefix: String) -> [RecordedRequest] {
        receivedRequests.filter { $0.path.hasPrefix(prefix) }
    }

    /// How many requests for paths starting with `prefix` carried an `Authorization` field.
    func credentialedRequests(under prefix: String) -> Int {
        requests(under: prefix).filter { $0.header("Authorization") != nil }.count
    }
}

/// A token provider that counts its refreshes and hands out `refreshed` after the first.
final class CountingTokenProvider: TokenProvider {
    private let state: NIOLockedValueBox<(token: String, refreshes: Int)>
    private let refreshed: String?

    init(initial: String, refreshed: String?) {
        self.state = NIOLockedValueBox((initial, 0))
        self.refreshed = refreshed
    }

    var refreshes: Int { state.withLockedValue { $0.refreshes } }

    func token() async throws -> String { state.withLockedValue { $0.token } }

    func refreshedToken(replacing rejected: String) async throws -> String? {
        // Give requests refused with the same token time to pile up behind this refresh.
        for _ in 0..<20 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(20))
        return state.withLockedValue { state in
            state.refreshes += 1
            if let refreshed { state.token = refreshed }
            return refreshed
        }
    }
}
