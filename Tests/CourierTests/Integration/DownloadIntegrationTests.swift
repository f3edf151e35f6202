import CourierTesting
import Foundation
import Testing

@testable import Courier
@testable import CourierURLSession

@Suite("Downloads to a file")
struct DownloadIntegrationTests {
    @Test("a download lands whole at its path, with progress up to the total, and no working files left")
    func downloadsToAPath() async throws {
        try await withDownloadSetup { folder, server, client in
            let progress = Recorder<TransferProgress>()
            let destination = folder.appendingPathComponent("data.bin")
            let result = try await client.download(
                CourierRequest<Void>(path: "/range/300000?seed=5"), to: .file(destination),
                options: DownloadOptions(progress: { progress.record($0) })
            )
            #expect(result.fileURL == destination)
            #expect(result.bytes == 300_000)
            #expect(result.response.status == 200)
            let digest = try sha256(ofFileAt: destination)
            #expect(digest == sha256(ofGenerated: 300_000, seed: 5))
            #expect(progress.values.last == TransferProgress(completedBytes: 300_000, totalBytes: 300_000))
            #expect(contents(of: folder) == ["data.bin"])
            #expect(server.receivedRequests.first?.header("Accept-Encoding") == "identity")
        }
    }

    @Test("downloads dropped at random points resume until complete, and the result is the source", arguments: [11, 12, 13] as [UInt64])
    func resumesAfterRandomDrops(dropSeed: UInt64) async throws {
        try await withDownloadSetup { folder, server, client in
            let destination = folder.appendingPathComponent("dropped.bin")
            // The retry policy decides how often a download resumes, as for any request.
            var request = CourierRequest<Void>(path: "/range/2000000?seed=9&drops=6&drop_seed=\(dropSeed)")
            request.retryPolicy = CourierRetryPolicy(maximumAttempts: 7, baseDelay: .milliseconds(1))
            let result = try await client.download(request, to: .file(destination))
            #expect(result.attempts == 7)
            let digest = try sha256(ofFileAt: destination)
            #expect(digest == sha256(ofGenerated: 2_000_000, seed: 9))
            let requests = server.receivedRequests
            #expect(requests.count == 7)
            #expect(requests[0].header("Range") == nil)
            // Each resumed request asks for the bytes after the last one written, with
            // the strong entity-tag as If-Range.
            let offsets = requests.dropFirst().compactMap { $0.header("Range").flatMap { Int($0.dropFirst(6).dropLast()) } }
            #expect(offsets.count == 6)
            #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 < $1 })
            #expect(requests.dropFirst().allSatisfy { $0.header("If-Range") == "\"range-2000000-9\"" })
            #expect(contents(of: folder) == ["dropped.bin"])
        }
    }

    @Test("when attempts run out the partial file and its record stay, and a new client finishes the download")
    func resumesAfterTheProcessEnded() async throws {
        try await withTemporaryFolder { folder in
            try await withServer { server in
                let destination = folder.appendingPathComponent("later.bin")
                let request = CourierRequest<Void>(path: "/range/400000?seed=2&drops=1&drop_at=150000&chunk_delay=0.001")
                let error = await courierError {
                    try await withClient(server) { client in
                        _ = try await client.download(request, to: .file(destination), options: DownloadOptions(maximumAttempts: 1))
                    }
                }
                #expect(error?.kind == .connectionFailed)
                let working = workingFiles(.file(destination), server.url("/range/400000?seed=2&drops=1&drop_at=150000&chunk_delay=0.001"))
                // Everything that arrived before the drop stays on disk.
                let kept = try #require(PartialFile.length(of: working.partial))
                #expect(kept == 150_000)
                let record = try #require(ResumeRecord.load(from: working.record))
                // Both files are the owner's alone, and the record holds the URL without its query.
                #expect(PrivateFiles.permissions(of: working.partial.path) == 0o600)
                #expect(PrivateFiles.permissions(of: working.record.path) == 0o600)
                #expect(record.url == server.url("/range/400000").absoluteString)
                #expect(try String(contentsOf: working.record, encoding: .utf8).contains("drop_at") == false)
                #expect(record.bytesReceived == kept)
                #expect(record.totalBytes == 400_000)
                #expect(record.entityTag == "\"range-400000-2\"")

                // A new client, as a new process would create, reads the record and continues.
                let result = try await withClient(server) { client in
                    try await client.download(request, to: .file(destination))
                }
                #expect(result.response.status == 206)
                #expect(server.receivedRequests.last?.header("Range") == "bytes=\(kept)-")
                let digest = try sha256(ofFileAt: destination)
                #expect(digest == sha256(ofGenerated: 400_000, seed: 2))
                #expect(contents(of: folder) == ["later.bin"])
                #expect(PrivateFiles.permissions(of: destination.path) == 0o600)
            }
        }
    }

    @Test("a resource that changed between attempts is downloaded again from zero, never spliced")
    func changedValidatorRestarts() async throws {
        try await withDownloadSetup { folder, server, client in
            let destination = folder.appendingPathComponent("changed.bin")
            let result = try await client.download(
                CourierRequest<Void>(path: "/range/300000?seed=20&versions=2&drops=1&drop_at=100000&chunk_delay=0.001"), to: .file(destination)
            )
            let requests = server.receivedRequests
            #expect(requests.count == 2)
            // The server paces the first answer so that some of it arrives before the drop.
            #expect(requests[1].header("Range")?.hasPrefix("bytes=") == true)
            #expect(requests[1].header("If-Range") == "\"range-300000-20-v1\"")
            #expect(result.response.status == 200)
            // The second version's bytes, generated from seed 21, whole.
            let digest = try sha256(ofFileAt: destination)
            #expect(digest == sha256(ofGenerated: 300_000, seed: 21))
        }
    }

    @Test("a 206 whose Content-Range lies is refused and the partial file discarded", arguments: ["start", "total"])
    func lyingContentRangeIsRejected(lie: String) async throws {
        try await withDownloadSetup { folder, server, client in
            let destination = folder.appendingPathComponent("lied.bin")
            let error = await courierError {
                _ = try await client.download(
                    CourierRequest<Void>(path: "/range/200000?seed=1&drops=1&drop_at=50000&chunk_delay=0.001&lie=\(lie)"), to: .file(destination)
                )
            }
            #expect(error?.kind == .resumeMismatch)
            #expect(error?.response?.status == 206)
            #expect(contents(of: folder).isEmpty)
        }
    }

    @Test("a 416 for a partial file that is already complete finishes the download")
    func rangeNotSatisfiableFinishes() async throws {
        try await withDownloadSetup { folder, server, client in
            let destination = folder.appendingPathComponent("complete.bin")
            let path = "/range/5000?seed=4"
            let working = workingFiles(.file(destination), server.url(path))
            try Data(TestServer.bytes(count: 5000, seed: 4)).write(to: working.partial)
            try ResumeRecord(url: server.url(path).absoluteString, entityTag: "\"range-5000-4\"", bytesReceived: 5000, totalBytes: 5000)
                .save(to: working.record)
            let result = try await client.download(CourierRequest<Void>(path: path), to: .file(destination))
            #expect(result.response.status == 416)
            #expect(server.receivedRequests.first?.header("Range") == "bytes=5000-")
            #expect(result.bytes == 5000)
            let digest = try sha256(ofFileAt: destination)
            #expect(digest == sha256(ofGenerated: 5000, seed: 4))
            #expect(contents(of: folder) == ["complete.bin"])
        }
    }

    @Test("a large download holds at most a few pieces in memory")
    func memoryStaysBounded() async throws {
        try await withDownloadSetup { folder, server, client in
            let gauge = BufferGauge()
            var options = DownloadOptions()
            options.bufferGauge = gauge
            let size = 128 << 20
            let destination = folder.appendingPathComponent("large.bin")
            var request = CourierRequest<Void>(path: "/range/\(size)?seed=3")
            request.timeout = .seconds(600)
            let result = try await client.download(request, to: .file(destination), options: options)
            #expect(result.bytes == Int64(size))
            #expect(PartialFile.length(of: destination) == Int64(size))
            // Bytes received but not yet written never exceeded one piece of the
            // transport's reads: 128 MiB went through at most 1 MiB at a time. FoundationNetworking
            // cannot pause a transfer, so there the body the writer has not taken yet is handed
            // over as one piece, up to the transport's buffer limit (the CourierURLSession
            // article lists the difference); a busy machine makes that piece larger.
            #expect(gauge.highWaterMark > 0)
            #if canImport(FoundationNetworking)
            let bound = TestTransport.selected == .urlSession ? CourierURLSessionTransport.defaultMaximumBufferedBytes : 1 << 20
            #else
            let bound = 1 << 20
            #endif
            #expect(gauge.highWaterMark <= bound)
        }
    }

    @Test("a digest the server announces is checked: a match keeps the file, a mismatch discards it")
    func digestsAreChecked() async throws {
        let bytes = TestServer.bytes(count: 10_000, seed: 8)
        let good = Data(sha256Digest(of: bytes)).base64EncodedString()
        try await withDownloadSetup { folder, server, client in
            let kept = folder.appendingPathComponent("kept.bin")
            let header = "Repr-Digest:sha-256=:\(good):".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            _ = try await client.download(CourierRequest<Void>(path: "/range/10000?seed=8&header=\(header)"), to: .file(kept))
            #expect(PartialFile.length(of: kept) == 10_000)

            let refused = folder.appendingPathComponent("refused.bin")
            let wrong = "Repr-Digest:sha-256=:\(Data(count: 32).base64EncodedString()):".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let error = await courierError {
                _ = try await client.download(CourierRequest<Void>(path: "/range/10000?seed=8&header=\(wrong)"), to: .file(refused))
            }
            #expect(error?.kind == .integrityCheckFailed)
            #expect(contents(of: folder) == ["kept.bin"])
        }
    }

    @Test("an existing file is not replaced unless asked")
    func existingFileIsKept() async throws {
        try await withDownloadSetup { folder, server, client in
            let destination = folder.appendingPathComponent("mine.txt")
            try Data("mine".utf8).write(to: destination)
            let error = await courierError {
                _ = try await client.download(CourierRequest<Void>(path: "/range/100"), to: .file(destination))
            }
            #expect(error?.kind == .invalidDestination)
            let written = try Data(contentsOf: destination)
            #expect(written == Data("mine".utf8))
            _ = try await client.download(
                CourierRequest<Void>(path: "/range/100"), to: .file(destination), options: DownloadOptions(overwritesExistingFile: true)
            )
            #expect(PartialFile.length(of: destination) == 100)
        }
    }

    @Test("redirects are followed to the file")
    func followsRedirects() async throws {
        try await withDownloadSetup { folder, server, client in
            let destination = folder.appendingPathComponent("moved.bin")
            let result = try await client.download(CourierRequest<Void>(path: "/redirect-to?url=/range/1000"), to: .file(destination))
            #expect(result.response.redirects.count == 1)
            #expect(result.bytes == 1000)
        }
    }

    @Test("a status other than 200, 206 or 416 fails with the response and writes nothing")
    func errorStatusFails() async throws {
        try await withDownloadSetup { folder, server, client in
            let error = await courierError {
                _ = try await client.download(CourierRequest<Void>(path: "/status/404"), to: .file(folder.appendingPathComponent("x")))
            }
            #expect(error?.kind == .validationFailed)
            #expect(error?.response?.status == 404)
            #expect(contents(of: folder).isEmpty)
        }
    }

    @Test("a transport that can only collect bodies still serves downloads, through the same path")
    func transportWithoutStreaming() async throws {
        struct CollectingOnly: Transport {
            func send(_ request: CourierHTTPRequest, deadline: ContinuousClock.Instant?) async throws -> CourierResponse {
                CourierResponse(status: 200, headers: ["Content-Length": "5"], body: Data("hello".utf8), url: request.url)
            }
            func shutdown() async throws {}
        }
        try await withTemporaryFolder { folder in
            let client = CourierClient(configuration: ClientConfiguration(baseURL: URL(string: "http://127.0.0.1:1")), transport: CollectingOnly())
            let file = folder.appendingPathComponent("x")
            let result = try await client.download(CourierRequest<Void>(path: "/file"), to: .file(file))
            #expect(result.bytes == 5)
            #expect(try Data(contentsOf: file) == Data("hello".utf8))
            try await client.shutdown()
        }
    }
}

@Suite("Paused downloads")
struct PausedDownloadTests {
    @Test("a paused download keeps its partial file and continues with a range request when resumed")
    func pauseAndResume() async throws {
        try await withDownloadSetup { folder, server, client in
            let destination = folder.appendingPathComponent("paused.bin")
            // Paced by the server (16 KiB every 20 ms), so that the pause lands part way.
            let handle = client.startDownload(CourierRequest<Void>(path: "/range/4000000?seed=6&chunk_delay=0.02"), to: .file(destination))
            for await progress in handle.progress where progress.completedBytes > 0 { break }
            handle.pause()
            #expect(handle.isPaused)
            handle.resume()
            let result = try await handle.value
            #expect(result.response.status == 206)
            let requests = server.receivedRequests
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-Range") == "\"range-4000000-6\"")
            let digest = try sha256(ofFileAt: destination)
            #expect(digest == sha256(ofGenerated: 4_000_000, seed: 6))
            #expect(contents(of: folder) == ["paused.bin"])
        }
    }

    @Test("stopping a handle keeps the partial file and its record, and a later download continues from them")
    func stopKeepsWorkingFiles() async throws {
        try await withDownloadSetup { folder, server, client in
            let destination = folder.appendingPathComponent("stopped.bin")
            let path = "/range/4000000?seed=6&chunk_delay=0.02"
            let handle = client.startDownload(CourierRequest<Void>(path: path), to: .file(destination))
            for await progress in handle.progress where progress.completedBytes > 0 { break }
            handle.stop()
            let error = await courierError { _ = try await handle.value }
            #expect(error?.kind == .cancelled)
            #expect(!contents(of: folder).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            let result = try await client.startDownload(CourierRequest<Void>(path: path), to: .file(destination)).value
            #expect(result.response.status == 206)
            #expect(server.receivedRequests.last?.header("If-Range") == "\"range-4000000-6\"")
            let digest = try sha256(ofFileAt: destination)
            #expect(digest == sha256(ofGenerated: 4_000_000, seed: 6))
            #expect(contents(of: folder) == ["stopped.bin"])
        }
    }

    @Test("cancelling a handle removes the partial file and its record")
    func cancelRemovesWorkingFiles() async throws {
        try await withDownloadSetup { folder, server, client in
            let destination = folder.appendingPathComponent("cancelled.bin")
            let handle = client.startDownload(CourierRequest<Void>(path: "/range/4000000?seed=6&chunk_delay=0.02"), to: .file(destination))
            for await progress in handle.progress where progress.completedBytes > 0 { break }
            handle.cancel()
            let error = await courierError { _ = try await handle.value }
            #expect(error?.kind == .cancelled)
            #expect(contents(of: folder).isEmpty)
        }
    }
}
