import CourierTesting
import Crypto
import Foundation

@testable import Courier

/// The SHA-256 of the file at `url`, read in 1 MiB pieces.
func sha256(ofFileAt url: URL) throws -> String {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    var hasher = SHA256()
    while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty { hasher.update(data: piece) }
    return hasher.finalize().map { String(format: "%02x", $0) }.joined()
}

/// The SHA-256 of the bytes the test server generates for `/range/COUNT?seed=SEED`.
func sha256(ofGenerated count: Int, seed: UInt64) -> String {
    SHA256.hash(data: TestServer.bytes(count: count, seed: seed)).map { String(format: "%02x", $0) }.joined()
}

/// Every file name in `folder`, sorted.
func contents(of folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
}

/// The partial file and resume record of a download of `url` to `destination`.
func workingFiles(_ destination: DownloadDestination, _ url: URL) -> (partial: URL, record: URL) {
    destination.workingFiles(for: url)
}

/// The SHA-256 of `bytes`.
func sha256Digest(of bytes: [UInt8]) -> [UInt8] {
    Array(SHA256.hash(data: bytes))
}

/// Runs `body` with a temporary folder, a test server and a client whose base URL is the server.
func withDownloadSetup<T>(_ body: (URL, TestServer, CourierClient) async throws -> T) async throws -> T {
    try await withTemporaryFolder { folder in
        try await withServer { server in
            // Downloads resume as the retry policy says, and the default policy retries nothing.
            try await withClient(server, configure: { $0.retryPolicy = CourierRetryPolicy(maximumAttempts: 5, baseDelay: .milliseconds(1)) }) { client in
                try await body(folder, server, client)
            }
        }
    }
}
