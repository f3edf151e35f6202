import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A download starts from what the cache holds: a stored response it may deliver is the file,
/// and stored first bytes are continued with `If-Range`; the server's answer decides.
@Suite("Cache: downloads reuse stored responses and parts")
struct DownloadFromCacheTests {
    /// Downloads `path` to `name` in `folder` with `request` changed by `change`.
    private func download(
        _ client: CourierClient, _ path: String, into folder: URL, name: String = "file.bin", change: (inout CourierRequest<Void>) -> Void = { _ in }
    ) async throws -> DownloadResult {
        var request = CourierRequest<Void>(path: path)
        change(&request)
        return try await client.download(request, to: .file(folder.appendingPathComponent(name)))
    }

    @Test func aStoredPartFromTheFirstByteIsContinuedWithIfRange() async throws {
        try await withTemporaryFolder { folder in
            try await withCache { server, client, _ in
                let path = "/range/30000?seed=4&header=Cache-Control:max-age=600"
                _ = try await fetch(client, path, headers: ["Range": "bytes=0-9999"])
                let progress = Recorder<TransferProgress>()
                let result = try await client.download(
                    CourierRequest<Void>(path: path), to: .file(folder.appendingPathComponent("file.bin")),
                    options: DownloadOptions(progress: { progress.record($0) }))
                #expect(result.response.status == 206)
                #expect(try sha256(ofFileAt: result.fileURL) == sha256(ofGenerated: 30000, seed: 4))
                let asked = try #require(server.requests(for: path).last)
                #expect(asked.header("Range") == "bytes=10000-")
                #expect(asked.header("If-Range") == "\"range-30000-4\"")
                #expect(progress.values.first?.completedBytes == 10000)
                #expect(progress.values.last == TransferProgress(completedBytes: 30000, totalBytes: 30000))
                #expect(server.requests(for: path).count == 2)
                #expect(contents(of: folder) == ["file.bin"])
            }
        }
    }

    @Test func aStoredResponseTheCacheMayDeliverIsTheFile() async throws {
        try await withTemporaryFolder { folder in
            try await withCache { server, client, _ in
                let path = "/range/5000?seed=6&header=Cache-Control:max-age=600"
                _ = try await fetch(client, path)
                let result = try await download(client, path, into: folder)
                #expect(result.response.status == 200 && result.response.source == .cache)
                #expect(result.response.body.isEmpty)
                #expect(result.bytes == 5000)
                #expect(try sha256(ofFileAt: result.fileURL) == sha256(ofGenerated: 5000, seed: 6))
                #expect(server.requests(for: path).count == 1)
            }
        }
    }

    @Test func aStaleStoredResponseIsConfirmedByTheServerWithoutItsBytes() async throws {
        try await withTemporaryFolder { folder in
            try await withCache { server, client, now in
                let path = "/range/5000?seed=7&header=Cache-Control:max-age=10"
                _ = try await fetch(client, path)
                now.advance(60)
                let result = try await download(client, path, into: folder)
                // Nothing after the stored bytes: the server says so with 416 while If-Range holds.
                #expect(result.response.status == 416)
                #expect(result.bytes == 5000)
                #expect(try sha256(ofFileAt: result.fileURL) == sha256(ofGenerated: 5000, seed: 7))
                let asked = try #require(server.requests(for: path).last)
                #expect(asked.header("Range") == "bytes=5000-")
                #expect(asked.header("If-Range") == "\"range-5000-7\"")
            }
        }
    }

    @Test func aChangedRepresentationReplacesTheStoredBytes() async throws {
        try await withTemporaryFolder { folder in
            try await withCache { server, client, _ in
                // Each request gets the next version: the download's If-Range names version 1.
                let path = "/range/3000?seed=20&versions=2&header=Cache-Control:max-age=600"
                _ = try await fetch(client, path, headers: ["Range": "bytes=0-999"])
                let result = try await download(client, path, into: folder)
                #expect(result.response.status == 200)
                #expect(try sha256(ofFileAt: result.fileURL) == sha256(ofGenerated: 3000, seed: 21))
                #expect(server.requests(for: path).last?.header("If-Range") == "\"range-3000-20-v1\"")
            }
        }
    }

    @Test(arguments: [CachePolicy.reload, .noStore])
    func policiesThatSkipTheStoreSendTheWholeRequest(policy: CachePolicy) async throws {
        try await withTemporaryFolder { folder in
            try await withCache { server, client, _ in
                let path = "/range/4000?seed=3&header=Cache-Control:max-age=600"
                _ = try await fetch(client, path)
                _ = try await download(client, path, into: folder) { $0.cachePolicy = policy }
                let asked = try #require(server.requests(for: path).last)
                #expect(asked.header("Range") == nil && asked.header("If-Range") == nil)
                #expect(server.requests(for: path).count == 2)
            }
        }
    }

    @Test func onlyIfCachedWithNothingWholeFailsWithTheCaches504() async throws {
        try await withTemporaryFolder { folder in
            try await withCache { server, client, _ in
                let path = "/range/4000?header=Cache-Control:max-age=600"
                _ = try await fetch(client, path, headers: ["Range": "bytes=0-99"])
                let error = await courierError {
                    _ = try await download(client, path, into: folder) { $0.cachePolicy = .onlyIfCached }
                }
                #expect(error?.kind == .validationFailed)
                #expect(error?.response?.status == 504)
                #expect(server.requests(for: path).count == 1)
                #expect(contents(of: folder).isEmpty)
            }
        }
    }

    @Test func storedBytesTheServerDoesNotContinueAreDroppedAndTheFileComesWhole() async throws {
        try await withTemporaryFolder { folder in
            try await withServer { server in
                let storage = MemoryCacheStorage()
                try await withCachingClient(server, storage: storage) { client, now in
                    // Bytes 0-9 stored as if a range request had brought them; the server then
                    // claims the rest starts at byte 11.
                    let path = "/range/30?seed=1&lie=start&header=Cache-Control:max-age=600"
                    try await storeFirstTenBytes(of: path, tag: "\"range-30-1\"", on: server, in: storage, at: now)
                    let result = try await download(client, path, into: folder)
                    #expect(result.response.status == 200)
                    #expect(try sha256(ofFileAt: result.fileURL) == sha256(ofGenerated: 30, seed: 1))
                    let requests = server.requests(for: path)
                    #expect(requests.map { $0.header("Range") } == ["bytes=10-", nil])
                }
            }
        }
    }

    @Test func theCacheIsReadWithTheCredentialsTheInterceptorsAdd() async throws {
        try await withTemporaryFolder { folder in
            try await withServer { server in
                let storage = MemoryCacheStorage()
                let path = "/range/2000?seed=2&header=Cache-Control:private,max-age=600"
                try await withCachingClient(server, storage: storage) { client, _ in
                    _ = try await fetch(client, path, headers: ["Range": "bytes=0-499", "Authorization": "Bearer a"])
                    // Without the credentials, the stored part is not theirs to use.
                    _ = try await download(client, path, into: folder, name: "anonymous.bin")
                    #expect(server.requests(for: path).last?.header("Range") == nil)
                }
                try await withCachingClient(server, storage: storage) {
                    $0.interceptors = [HeaderInjector(["Authorization": "Bearer a"])]
                } _: { client, _ in
                    let result = try await download(client, path, into: folder, name: "private.bin")
                    #expect(try sha256(ofFileAt: result.fileURL) == sha256(ofGenerated: 2000, seed: 2))
                    #expect(server.requests(for: path).last?.header("Range") == "bytes=500-")
                }
            }
        }
    }

    @Test func aDownloadIntoAFolderTakesTheStoredName() async throws {
        try await withTemporaryFolder { folder in
            try await withCache { server, client, _ in
                let path = "/range/3000?seed=8&header=Cache-Control:max-age=600&header=Content-Disposition:attachment%3B%20filename%3Dreport.bin"
                _ = try await fetch(client, path, headers: ["Range": "bytes=0-1499"])
                let result = try await client.download(CourierRequest<Void>(path: path), to: .directory(folder))
                #expect(result.fileURL.lastPathComponent == "report.bin")
                #expect(result.response.status == 206)
                #expect(try sha256(ofFileAt: result.fileURL) == sha256(ofGenerated: 3000, seed: 8))
                #expect(contents(of: folder) == ["report.bin"])
            }
        }
    }

    @Test func aDownloadLeavesTheStoreAsItWas() async throws {
        try await withTemporaryFolder { folder in
            try await withServer { server in
                let storage = MemoryCacheStorage()
                try await withCachingClient(server, storage: storage) { client, _ in
                    let path = "/range/3000?seed=9&header=Cache-Control:max-age=600"
                    _ = try await download(client, path, into: folder)
                    let key = CacheKey.primary(for: server.url(path), identity: nil)
                    #expect(try await storage.entries(forKey: key).isEmpty)
                }
            }
        }
    }
}
