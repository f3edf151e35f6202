import Courier
import CourierQueue
import CourierTesting
import Foundation
import NIOConcurrencyHelpers

/// Whether the queue database at `path`, or its `-wal` or `-shm` file, holds the bytes of
/// `secret` anywhere.
func queueFilesContain(_ path: String, _ secret: String) -> Bool {
    let needle = Data(secret.utf8)
    return [path, path + "-wal", path + "-shm"].contains { file in
        FileManager.default.contents(atPath: file)?.range(of: needle) != nil
    }
}

/// A client configuration with a bearer token for the origin of `url`.
func bearerConfiguration(_ token: String, for url: URL) -> ClientConfiguration {
    var configuration = ClientConfiguration()
    configuration.authentication.add(.bearer(token), for: .origin(url))
    return configuration
}

/// A credential source that gives `Authorization: Bearer TOKEN` once a token is set, and
/// counts how often it was asked.
final class SwitchableToken: QueueCredentialSource, Sendable {
    private let state = NIOLockedValueBox<(token: String?, asked: Int)>((nil, 0))

    var asked: Int { state.withLockedValue { $0.asked } }

    func set(_ token: String?) { state.withLockedValue { $0.token = token } }

    func credentials(for request: QueuedRequest, named names: [String]) async throws -> Headers {
        let token = state.withLockedValue { state -> String? in
            state.asked += 1
            return state.token
        }
        guard let token, names.contains("Authorization") else { return Headers() }
        return ["Authorization": "Bearer \(token)"]
    }
}
