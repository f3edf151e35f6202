import CourierQueue
import CourierTesting
import Foundation
import Testing

@testable import Courier
@testable import CourierURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Transfers carried by a background transfers session, on the client's one request path:
/// downloads on download tasks, whose bodies pass through the kept-results folder, and uploads
/// of files on upload tasks.
@Suite("Background transfers")
struct BackgroundTransferTests {
    /// A server, a folder for destinations, the background folder inside it, and a client whose
    /// transport carries downloads on download tasks and file uploads on upload tasks.
    func withBackgroundClient(
        configure: (inout ClientConfiguration) -> Void = { _ in },
        _ body: (TestServer, URL, URL, CourierClient) async throws -> Void
    ) async throws {
        try await withBackgroundTransport(configure: configure) { server, folder, kept, _, client in
            try await body(server, folder, kept, client)
        }
    }

    /// As ``withBackgroundClient(configure:_:)``, with the transport too.
    func withBackgroundTransport(
        configure: (inout ClientConfiguration) -> Void = { _ in },
        _ body: (TestServer, URL, URL, CourierURLSessionTransport, CourierClient) async throws -> Void
    ) async throws {
        try await withTemporaryFolder { folder in
            try await withServer { server in
                var configuration = ClientConfiguration(baseURL: server.baseURL)
                configuration.timeouts.connect = .seconds(120)
                configure(&configuration)
                let kept = folder.appendingPathComponent("background")
                let transport = try CourierURLSessionTransport(
                    configuration: configuration, backgroundTransfers: BackgroundTransfers(identifier: "tests.downloads", folder: kept)
                )
                try await CourierClient.withClient(configuration: configuration, transport: transport) { client in
                    try await body(server, folder, kept, transport, client)
                }
            }
        }
    }

    /// Runs `work` on a dispatch queue rather than Swift's pool: FoundationNetworking's task
    /// calls can wait for a session that is reading another request's streamed body, whose
    /// next piece the pool produces.
    func awayFromThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }

    /// Starts an upload task of `background` that no client waits for, named `name`, as the
    /// system hands over a task from before a relaunch.
    func startUnclaimedUpload(_ urlRequest: URLRequest, from file: URL, name: String, on background: BackgroundSession) async -> URLSessionUploadTask {
        await awayFromThePool {
            let task = background.session.uploadTask(with: urlRequest, fromFile: file)
            task.taskDescription = name
            task.resume()
            return task
        }
    }

    /// Writes `bytes` to `file` and POSTs it to `url` with the header `fields` on an upload task
    /// of `transport`'s background session that no client waits for, named as the client's
    /// identical request would be, as the system hands over a task from before a relaunch;
    /// returns once its answer is kept in `kept`.
    func uploadWhileNobodyWaits(
        _ bytes: Data, from file: URL, to url: URL, fields: [(String, String)], on transport: CourierURLSessionTransport, kept: URL
    ) async throws {
        let background = try #require(transport.background)
        try bytes.write(to: file)
        var headers = Headers()
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "POST"
        for (name, value) in fields {
            headers.add(name: name, value: value)
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        let key = TransferLedger.key(method: "POST", url: url, headers: headers, file: try CourierRequestBody.file(file).sourceFile)
        _ = await startUnclaimedUpload(urlRequest, from: file, name: TransferLedger.name(for: key), on: background)
        for _ in 0..<3000 where !keptFiles(kept).contains(where: { $0.hasSuffix(".head") }) {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func keptFiles(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test func aDownloadIsWrittenWholeAndLeavesNothingBehind() async throws {
        try await withBackgroundClient { server, folder, kept, client in
            let destination = folder.appendingPathComponent("file.bin")
            let result = try await client.download(CourierRequest<Void>(path: "/range/300000?seed=3"), to: .file(destination))
            #expect(result.response.status == 200)
            #expect(try sha256(ofFileAt: destination) == sha256(ofGenerated: 300_000, seed: 3))
            #expect(PrivateFiles.permissions(of: destination.path) == 0o600)
            #expect(PrivateFiles.permissions(of: kept.path) == 0o700)
            #expect(keptFiles(kept).isEmpty)
            #expect(server.requests(under: "/range").count == 1)
        }
    }

    /// A file body goes on an upload task, which sends the file itself: with its length, not
    /// chunked as a streamed body on a data task would be, and with its progress reported.
    @Test func aFileUploadGoesOnAnUploadTaskWithItsLengthAndProgress() async throws {
        try await withBackgroundClient { server, folder, kept, client in
            let file = folder.appendingPathComponent("photo.bin")
            let bytes = Data(TestServer.bytes(count: 300_000, seed: 7))
            try bytes.write(to: file)
            var request = CourierRequest<Void>(method: .post, path: "/anything")
            request.body = try .file(file)
            let values = Recorder<TransferProgress>()
            request.uploadProgress = { values.record($0) }
            let response = try await client.response(for: request)
            #expect(response.status == 200)
            let sent = try #require(server.requests(under: "/anything").last)
            #expect(Data(sent.body) == bytes)
            #expect(sent.header("Content-Length") == "300000")
            #expect(sent.header("Transfer-Encoding") == nil)
            #expect(sent.header("Content-Type") == "application/octet-stream")
            #expect(values.values.last?.completedBytes == 300_000)
            #expect(values.values.allSatisfy { $0.totalBytes == 300_000 }, "\(values.values)")
            #expect(keptFiles(kept).isEmpty)
        }
    }

    /// A challenge to an upload is answered by the client, which sends the file again on a
    /// second upload task, with its credentials.
    @Test func aChallengedUploadIsSentAgainWithCredentials() async throws {
        try await withBackgroundClient(configure: {
            $0.authentication = Authentication(.password(user: "ada", password: "pw"))
        }) { server, folder, kept, client in
            let file = folder.appendingPathComponent("report.csv")
            try Data("a,b\n1,2\n".utf8).write(to: file)
            var request = CourierRequest<Void>(method: .post, path: "/basic-auth/ada/pw")
            request.body = try .file(file, contentType: "text/csv")
            let response = try await client.response(for: request)
            #expect(response.status == 200)
            let sent = server.requests(under: "/basic-auth")
            #expect(sent.count == 2)
            #expect(sent.last?.header("Authorization") == "Basic YWRhOnB3")
            #expect(sent.allSatisfy { Data($0.body) == Data("a,b\n1,2\n".utf8) && $0.header("Content-Type") == "text/csv" })
            #expect(keptFiles(kept).isEmpty)
        }
    }

    /// The system reads the file itself, so Courier checks it around the task: a file that
    /// changed since its body was made is refused before anything is sent, and one that changes
    /// while its upload is under way fails the request when the answer comes.
    @Test func aFileThatChangesIsRefusedBeforeAndAfterItIsSent() async throws {
        try await withBackgroundClient { server, folder, kept, client in
            let file = folder.appendingPathComponent("log.txt")
            try Data("first version".utf8).write(to: file)
            var request = CourierRequest<Void>(method: .post, path: "/anything/before")
            request.body = try .file(file)
            try Data("second, longer version".utf8).write(to: file)
            let before = await courierError { _ = try await client.response(for: request) }
            #expect(before?.kind == .invalidBody)
            #expect(server.requests(under: "/anything/before").isEmpty)

            var held = CourierRequest<Void>(method: .post, path: "/gate/changed")
            held.body = try .file(file)
            async let after = courierError { _ = try await client.response(for: held) }
            for _ in 0..<3000 where server.requests(under: "/gate").isEmpty {
                try await Task.sleep(for: .milliseconds(10))
            }
            try Data("third".utf8).write(to: file)
            server.openGate("changed")
            let error = await after
            #expect(error?.kind == .invalidBody)
            #expect(error?.message.contains("may have received") == true)
            #expect(keptFiles(kept).isEmpty)
        }
    }

    @Test func anUploadPastItsTimeoutFailsAndKeepsNothing() async throws {
        try await withBackgroundClient { _, folder, kept, client in
            let file = folder.appendingPathComponent("slow.bin")
            try Data(repeating: 1, count: 1000).write(to: file)
            var request = CourierRequest<Void>(method: .post, path: "/gate/silent")
            request.body = try .file(file)
            request.timeout = .seconds(1)
            let error = await courierError { _ = try await client.response(for: request) }
            #expect(error?.kind == .timeout)
            #expect(keptFiles(kept).isEmpty)
        }
    }

    /// The answer to an upload the session sent while nobody waited (as after a relaunch: a
    /// task this process did not start through the client) is kept, and answers the next
    /// identical upload of the same file without sending it, once.
    @Test func anUploadAnsweredWhileNobodyWaitedAnswersTheNextIdenticalUpload() async throws {
        try await withBackgroundTransport { server, folder, kept, transport, client in
            let file = folder.appendingPathComponent("video.bin")
            let url = server.url("/anything/videos")
            let fields = [("Content-Type", "application/octet-stream")]
            try await uploadWhileNobodyWaits(Data(TestServer.bytes(count: 50_000, seed: 3)), from: file, to: url, fields: fields, on: transport, kept: kept)
            #expect(keptFiles(kept).count == 2)
            #expect(server.requests(under: "/anything/videos").count == 1)

            var request = CourierRequest<Void>(method: .post, path: url.absoluteString)
            request.body = try .file(file)
            let answered = try await client.response(for: request)
            #expect(answered.status == 200)
            #expect(String(decoding: answered.body, as: UTF8.self).contains("/anything/videos"))
            #expect(server.requests(under: "/anything/videos").count == 1)
            #expect(keptFiles(kept).isEmpty)

            // Read once: the same upload again is sent; so is the file once it changed.
            _ = try await client.response(for: request)
            #expect(server.requests(under: "/anything/videos").count == 2)
            #expect(Data(try #require(server.requests(under: "/anything/videos").last).body) == Data(TestServer.bytes(count: 50_000, seed: 3)))
        }
    }

    /// A durable record whose body is a file goes on an upload task with its idempotency key:
    /// when the system finished that upload while the app was not running, the record sent
    /// again after the relaunch is answered from the kept result, and the server is not asked
    /// twice.
    @Test func aQueuedFileUploadTheSystemFinishedIsAnsweredFromItsKeptResult() async throws {
        try await withBackgroundTransport { server, folder, kept, transport, client in
            let file = folder.appendingPathComponent("report.bin")
            let url = server.url("/idempotent/reports")
            let queued = QueuedRequest(method: .post, url: url, body: .file(path: file.path))
            // The upload the earlier launch started, with the record's key.
            let fields = [(QueuedRequest.idempotencyKeyHeader, queued.idempotencyKey)]
            try await uploadWhileNobodyWaits(Data(TestServer.bytes(count: 40_000, seed: 21)), from: file, to: url, fields: fields, on: transport, kept: kept)
            #expect(server.ledger.entries[queued.idempotencyKey]?.requests == 1)

            try await withQueueFolder { path in
                let queue = try await client.openQueue(testQueueConfiguration(path: path))
                let record = try await queue.enqueue(queued).outcome()
                await queue.close()
                #expect(record.state == .delivered)
                #expect(record.outcome?.status == 201)
            }
            let entry = try #require(server.ledger.entries[queued.idempotencyKey])
            #expect(entry.requests == 1 && entry.applied == 1)
            #expect(entry.body == Data(TestServer.bytes(count: 40_000, seed: 21)))
            #expect(keptFiles(kept).isEmpty)
        }
    }

    /// An answer to an upload nobody waits for that grows past the limit is not kept.
    @Test func anUnclaimedAnswerPastTheLimitIsNotKept() async throws {
        try await withBackgroundTransport { server, folder, kept, transport, _ in
            let background = try #require(transport.background)
            let file = folder.appendingPathComponent("small.bin")
            try Data("x".utf8).write(to: file)
            var urlRequest = URLRequest(url: server.url("/bytes/\(UnclaimedResponses.maximumBytes + 1)"))
            urlRequest.httpMethod = "POST"
            let name = TransferLedger.name(for: TransferLedger.key(method: "POST", url: try #require(urlRequest.url), headers: Headers()))
            let task = await startUnclaimedUpload(urlRequest, from: file, name: name, on: background)
            for _ in 0..<3000 where await awayFromThePool({ task.state }) != .completed {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(await awayFromThePool { task.state } == .completed)
            #expect(keptFiles(kept).isEmpty)
        }
    }

    /// A download's progress comes from the task as it writes, before the body reaches the
    /// kept-results folder (on Linux without a length, which FoundationNetworking tells only
    /// at the end); copying it to the destination then adds no value that goes back or
    /// repeats.
    @Test func aDownloadReportsProgressWhileTheTaskReceives() async throws {
        try await withBackgroundClient { _, folder, kept, client in
            let seen = Recorder<(progress: TransferProgress, isKeptYet: Bool)>()
            let options = DownloadOptions(progress: { progress in
                // A part file is the body still arriving (on Linux); a body file, the body kept.
                seen.record((progress, keptFiles(kept).contains { $0.hasSuffix(".body") }))
            })
            let destination = folder.appendingPathComponent("progress.bin")
            _ = try await client.download(
                CourierRequest<Void>(path: "/range/1000000?seed=8&chunk_delay=0.005"), to: .file(destination), options: options
            )
            let values = seen.values
            #expect(values.contains { $0.progress.completedBytes < 1_000_000 && !$0.isKeptYet }, "\(values)")
            #expect(values.last?.progress == TransferProgress(completedBytes: 1_000_000, totalBytes: 1_000_000))
            let counts = values.map(\.progress.completedBytes)
            #expect(counts == counts.sorted(), "\(counts)")
            // None repeats the one before it. The task's own last report (on Linux without a
            // length) may come before the copy's, which adds the length: both are news.
            #expect(zip(values, values.dropFirst()).allSatisfy { $0.progress != $1.progress }, "\(values)")
            #expect(values.filter { $0.progress.completedBytes == 1_000_000 }.count <= 2, "\(values)")
        }
    }

    /// Identical downloads at once each get a task and a kept result of their own: none reads
    /// or deletes another's body.
    @Test func identicalDownloadsAtOnceEachGetTheWholeBody() async throws {
        try await withBackgroundClient { server, folder, kept, client in
            let path = "/range/200000?seed=4&chunk_delay=0.001"
            let hashes = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        let destination = folder.appendingPathComponent("same-\(index).bin")
                        let result = try await client.download(CourierRequest<Void>(path: path), to: .file(destination))
                        #expect(result.response.status == 200)
                        return try sha256(ofFileAt: destination)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(hashes == Array(repeating: sha256(ofGenerated: 200_000, seed: 4), count: 4))
            #expect(server.requests(under: "/range/200000").count == 4)
            #expect(keptFiles(kept).isEmpty)
        }
    }

    @Test func redirectsAndChallengesAreAnsweredByTheClientHopByHop() async throws {
        try await withBackgroundClient(configure: {
            $0.authentication = Authentication(.password(user: "ada", password: "pw"))
        }) { server, folder, kept, client in
            var request = CourierRequest<Void>(path: "/redirect-to")
            request.query = [URLQueryItem(name: "url", value: "/basic-auth/ada/pw")]
            let destination = folder.appendingPathComponent("answer.json")
            let result = try await client.download(request, to: .file(destination))
            #expect(result.response.status == 200)
            #expect(result.response.redirects.count == 1)
            let sent = server.receivedRequests.map { $0.uri.split(separator: "?")[0] }
            // URLSession followed nothing and answered nothing itself: the redirect, the
            // challenge and the answer are three exchanges the client made.
            #expect(sent == ["/redirect-to", "/basic-auth/ada/pw", "/basic-auth/ada/pw"], "\(sent)")
            #expect(server.receivedRequests.last?.header("Authorization") == "Basic YWRhOnB3")
            #expect(String(decoding: try Data(contentsOf: destination), as: UTF8.self).contains("\"authenticated\""))
            #expect(keptFiles(kept).isEmpty)
        }
    }

    @Test func aPartialDownloadIsContinuedWithARangeOnADownloadTask() async throws {
        try await withBackgroundClient { server, folder, kept, client in
            let url = server.url("/range/400000?seed=2")
            let source = folder.appendingPathComponent("first-part")
            try Data(TestServer.bytes(count: 150_000, seed: 2)).write(to: source)
            let destination = folder.appendingPathComponent("continued.bin")
            try DownloadDestination.file(destination).adoptPartialDownload(
                of: url, from: source, bytes: 150_000, entityTag: "\"range-400000-2\"", lastModified: nil
            )
            let result = try await client.download(CourierRequest<Void>(path: url.absoluteString), to: .file(destination))
            #expect(result.response.status == 206)
            let sent = try #require(server.requests(under: "/range/400000").last)
            #expect(sent.header("Range") == "bytes=150000-")
            #expect(sent.header("If-Range") == "\"range-400000-2\"")
            #expect(server.requests(under: "/range/400000").count == 1)
            #expect(try sha256(ofFileAt: destination) == sha256(ofGenerated: 400_000, seed: 2))
            #expect(keptFiles(kept).isEmpty)
        }
    }

    @Test func aRefusedStatusFailsAsOnAnyTransportAndKeepsNothing() async throws {
        try await withBackgroundClient { _, folder, kept, client in
            let error = await courierError {
                _ = try await client.download(CourierRequest<Void>(path: "/status/404"), to: .file(folder.appendingPathComponent("x")))
            }
            #expect(error?.kind == .validationFailed)
            #expect(error?.response?.status == 404)
            #expect(keptFiles(kept).isEmpty)
        }
    }

    /// What the session finished while the app was not running answers the next download of
    /// the same request: the server is not asked again.
    @Test func aResultKeptWhileNobodyWaitedAnswersTheNextIdenticalDownload() async throws {
        try await withBackgroundClient { server, folder, kept, client in
            // A download sends no credential, cookie, range or Accept of its own: its key is
            // its method and URL.
            let headers = Headers()
            let url = server.url("/range/5000?seed=9")
            let ledger = try TransferLedger(folder: kept)
            let body = folder.appendingPathComponent("delivered.tmp")
            try Data(TestServer.bytes(count: 5000, seed: 9)).write(to: body)
            let response = try #require(
                HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "5000", "ETag": "\"range-5000-9\""])
            )
            let name = TransferLedger.name(for: TransferLedger.key(method: "GET", url: url, headers: headers))
            #expect(ledger.keep(body, response: response, name: name, isClaimed: false) != nil)
            #expect(keptFiles(kept) == [name + ".body", name + ".head"])

            let destination = folder.appendingPathComponent("later.bin")
            let result = try await client.download(CourierRequest<Void>(path: url.absoluteString), to: .file(destination))
            #expect(result.response.status == 200)
            #expect(try sha256(ofFileAt: destination) == sha256(ofGenerated: 5000, seed: 9))
            #expect(server.requests(under: "/range/5000").isEmpty)
            #expect(keptFiles(kept).isEmpty)

            // Read once: the same download again goes to the server.
            try FileManager.default.removeItem(at: destination)
            _ = try await client.download(CourierRequest<Void>(path: url.absoluteString), to: .file(destination))
            #expect(server.requests(under: "/range/5000").count == 1)
        }
    }

    @Test func aDamagedKeptResultIsDeletedAndTheDownloadSent() async throws {
        try await withBackgroundClient { server, folder, kept, client in
            let url = server.url("/range/4000?seed=5")
            let name = TransferLedger.name(for: TransferLedger.key(method: "GET", url: url, headers: Headers()))
            try Data("{\"status\": 200, \"fields\": [[\"only-a-name\"]]".utf8).write(to: kept.appendingPathComponent(name + ".head"))
            try Data("not the body".utf8).write(to: kept.appendingPathComponent(name + ".body"))

            let destination = folder.appendingPathComponent("sent.bin")
            _ = try await client.download(CourierRequest<Void>(path: url.absoluteString), to: .file(destination))
            #expect(try sha256(ofFileAt: destination) == sha256(ofGenerated: 4000, seed: 5))
            #expect(server.requests(under: "/range/4000").count == 1)
            #expect(keptFiles(kept).isEmpty)
        }
    }

    @Test func aDownloadPastItsTimeoutFailsAndKeepsNothing() async throws {
        try await withBackgroundClient { _, folder, kept, client in
            var request = CourierRequest<Void>(path: "/drip?numbytes=20&duration=20")
            request.timeout = .seconds(1)
            let error = await courierError { _ = try await client.download(request, to: .file(folder.appendingPathComponent("slow"))) }
            #expect(error?.kind == .timeout)
            #expect(keptFiles(kept).isEmpty)
        }
    }

    /// The files in the system's temporary folder, modified since `date`, that hold exactly
    /// `bytes`.
    func temporaryFiles(holding bytes: Data, since date: Date) -> [URL] {
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]
        let files = (try? FileManager.default.contentsOfDirectory(at: FileManager.default.temporaryDirectory, includingPropertiesForKeys: keys)) ?? []
        return files.filter { file in
            guard let values = try? file.resourceValues(forKeys: Set(keys)), values.isRegularFile == true, values.fileSize == bytes.count,
                let modified = values.contentModificationDate, modified >= date.addingTimeInterval(-1)
            else { return false }
            return (try? Data(contentsOf: file)) == bytes
        }
    }

    /// A download's bytes are written to no file but the folder's own, the owner's alone, and a
    /// download cancelled halfway leaves nothing anywhere. (FoundationNetworking writes a
    /// download task's body to a file of its own in the shared temporary folder, readable by
    /// other users, and leaves it there when the task is cancelled.)
    @Test func aDownloadsBytesGoToTheFolderAloneAndACancelledOneLeavesNothing() async throws {
        let started = Date()
        // `/conformance/stall_body` sends 1,000 bytes of "A", then nothing for an hour.
        let arrived = Data(repeating: UInt8(ascii: "A"), count: 1000)
        try await withBackgroundClient { _, folder, kept, client in
            let progress = Recorder<TransferProgress>()
            let destination = folder.appendingPathComponent("stalled.bin")
            let download = Task {
                try await client.download(
                    CourierRequest<Void>(path: "/conformance/stall_body"), to: .file(destination), options: DownloadOptions(progress: { progress.record($0) })
                )
            }
            for _ in 0..<3000 where (progress.values.last?.completedBytes ?? 0) < 1000 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(progress.values.last?.completedBytes == 1000)
            #if canImport(FoundationNetworking)
            let parts = keptFiles(kept).filter { $0.hasSuffix(".part") }
            #expect(parts.count == 1, "\(keptFiles(kept))")
            for part in parts {
                let file = kept.appendingPathComponent(part)
                #expect(PrivateFiles.permissions(of: file.path) == 0o600)
                #expect(try Data(contentsOf: file) == arrived)
            }
            #endif
            #expect(temporaryFiles(holding: arrived, since: started).isEmpty)

            download.cancel()
            let error = await courierError { _ = try await download.value }
            #expect(error?.kind == .cancelled)
            #expect(keptFiles(kept).isEmpty)
            #expect(temporaryFiles(holding: arrived, since: started).isEmpty)
        }
    }

    @Test func keptHeadsHoldNoCookieAndKeptFilesAreTheOwnersAlone() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-kept-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let ledger = try TransferLedger(folder: folder)
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("courier-body-\(UUID().uuidString)")
        try Data("body".utf8).write(to: body)
        let url = URL(string: "http://127.0.0.1:9/file")!
        let response = try #require(
            HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Set-Cookie": "session=s3cr3t-value; HttpOnly", "ETag": "\"e\""])
        )
        let key = TransferLedger.key(method: "GET", url: url, headers: Headers())
        let name = TransferLedger.name(for: key)
        let entry = try #require(ledger.keep(body, response: response, name: name, isClaimed: false))
        let head = try Data(contentsOf: folder.appendingPathComponent(name + ".head"))
        #expect(!String(decoding: head, as: UTF8.self).contains("s3cr3t"))
        #expect(entry.head.fields.contains { $0[0].lowercased() == "etag" })
        #expect(!entry.head.fields.contains { $0[0].lowercased() == "set-cookie" })
        #expect(PrivateFiles.permissions(of: folder.appendingPathComponent(name + ".head").path) == 0o600)
        #expect(PrivateFiles.permissions(of: entry.body.path) == 0o600)
        #expect(PrivateFiles.permissions(of: folder.path) == 0o700)
        // A name or key that is not one of the ledger's own names no file.
        #expect(ledger.keep(body, response: response, name: "../escape", isClaimed: false) == nil)
        #expect(ledger.keep(body, response: response, name: "../" + String(name.dropFirst(3)), isClaimed: false) == nil)
        #expect(ledger.claim("../\(key)") == nil)
        #expect(ledger.claim(String(key.dropLast()) + "/") == nil)
        // Keys differ by credentials: a result is never handed to another user.
        var other = Headers()
        other.add(name: "Authorization", value: "Bearer someone-else")
        #expect(TransferLedger.key(method: "GET", url: url, headers: other) != key)
    }

    /// Each open result is claimed by one download; a claimed one, which a waiting download
    /// asked for, is handed to no other.
    @Test func aKeptResultIsClaimedByOneDownloadOnly() async throws {
        try await withTemporaryFolder { folder in
            let ledger = try TransferLedger(folder: folder.appendingPathComponent("kept"))
            let url = URL(string: "http://127.0.0.1:9/same")!
            let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]))
            let key = TransferLedger.key(method: "GET", url: url, headers: Headers())
            func keep(_ text: String, isClaimed: Bool) throws -> TransferLedger.Entry {
                let body = folder.appendingPathComponent(UUID().uuidString)
                try Data(text.utf8).write(to: body)
                return try #require(ledger.keep(body, response: response, name: TransferLedger.name(for: key), isClaimed: isClaimed))
            }
            let waited = try keep("waited", isClaimed: true)
            let first = try keep("first", isClaimed: false)
            let second = try keep("second", isClaimed: false)
            #expect(Set([waited.name, first.name, second.name]).count == 3)

            let claims = [ledger.claim(key), ledger.claim(key), ledger.claim(key)]
            #expect(claims[2] == nil)
            let claimed = claims.compactMap { $0 }
            #expect(Set(claimed.map(\.name)) == [first.name, second.name])
            #expect(Set(try claimed.map { String(decoding: try Data(contentsOf: $0.body), as: UTF8.self) }) == ["first", "second"])
            // The waited result is still whole for its download.
            #expect(String(decoding: try Data(contentsOf: waited.body), as: UTF8.self) == "waited")
            for entry in claimed + [waited] { ledger.remove(entry.name) }
            #expect(keptFiles(folder.appendingPathComponent("kept")).isEmpty)
        }
    }

    /// A ledger that opens deletes results past their age and bodies long without a head, but
    /// not a body another ledger on the folder is keeping right now.
    @Test func openingALedgerPrunesOnlyWhatIsOldOrLongOrphaned() async throws {
        try await withTemporaryFolder { folder in
            let kept = folder.appendingPathComponent("kept")
            let ledger = try TransferLedger(folder: kept)
            let url = URL(string: "http://127.0.0.1:9/pruned")!
            let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:]))
            let key = TransferLedger.key(method: "GET", url: url, headers: Headers())
            func keep() throws -> TransferLedger.Entry {
                let body = folder.appendingPathComponent(UUID().uuidString)
                try Data("body".utf8).write(to: body)
                return try #require(ledger.keep(body, response: response, name: TransferLedger.name(for: key), isClaimed: false))
            }
            func age(_ file: URL, by seconds: TimeInterval) throws {
                try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-seconds)], ofItemAtPath: file.path)
            }
            let fresh = try keep()
            let old = try keep()
            try age(old.body, by: TransferLedger.maximumAge + 60)
            try age(kept.appendingPathComponent(old.name + ".head"), by: TransferLedger.maximumAge + 60)
            let freshOrphan = try keep()
            try FileManager.default.removeItem(at: kept.appendingPathComponent(freshOrphan.name + ".head"))
            let longOrphan = try keep()
            try FileManager.default.removeItem(at: kept.appendingPathComponent(longOrphan.name + ".head"))
            try age(longOrphan.body, by: TransferLedger.orphanAge + 60)
            // Part files: one still being written, one a process that ended left unwritten.
            let writing = ledger.partFile(TransferLedger.name(for: key))
            try Data("arriving".utf8).write(to: writing)
            let abandoned = ledger.partFile(TransferLedger.name(for: key))
            try Data("left".utf8).write(to: abandoned)
            try age(abandoned, by: TransferLedger.orphanAge + 60)

            _ = try TransferLedger(folder: kept)
            let left = Set(keptFiles(kept))
            #expect(left == [fresh.name + ".head", fresh.name + ".body", freshOrphan.name + ".body", writing.lastPathComponent])
        }
    }

    @Test func aFolderOpenToOtherUsersIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-open-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = chmod(folder.path, 0o755)
        let error = #expect(throws: CourierError.self) {
            _ = try CourierURLSessionTransport(backgroundTransfers: BackgroundTransfers(identifier: "tests.open", folder: folder))
        }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.message.contains("chmod 700") == true)
    }
}
