import ArgumentParser
import Courier
import CourierDemoServer
import CourierServerSentEvents
import Foundation
import NIOConcurrencyHelpers

/// `courier demo`: starts two local servers and walks through what Courier does.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        _superCommandName: CourierCLI.name,
        abstract: "Start a local server and walk through Courier's features, printing each step."
    )

    func run() async throws {
        let out = Output.current
        let server = try await TestServer.start()
        let other = try await TestServer.start()
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.interceptors = [URLArgumentsFilter(["app": "demo"])]
        configuration.observers = [
            EventHooks(didStop: { event in
                let ms = Double(event.elapsed.components.attoseconds) / 1e15 + Double(event.elapsed.components.seconds) * 1000
                out.line("    · \(event.request.method) \(event.request.url.path) → \(event.state) in \(String(format: "%.1f", ms)) ms")
            })
        ]
        let client = CourierClient(configuration: configuration)
        let steps = DemoSteps(client: client, server: server, other: other, out: out)
        do {
            try await steps.runAll()
        } catch {
            try? await client.shutdown()
            try? await server.shutdown()
            try? await other.shutdown()
            throw error
        }
        try await client.shutdown()
        try await server.shutdown()
        try await other.shutdown()
        out.line("")
        out.line("Demo finished: every step ran against \(server.baseURL.absoluteString) and \(other.baseURL.absoluteString).")
    }
}

/// The demo's steps, each printing what it shows.
struct DemoSteps {
    let client: CourierClient
    let server: TestServer
    let other: TestServer
    let out: Output

    struct Echo: Decodable, Sendable {
        let method: String
        let args: [String: JSONValue]
        let headers: [String: String]
        let json: JSONValue?
    }

    struct Note: Codable, Sendable {
        let title: String
        let tags: [String]
    }

    func priorities() async throws {
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.limits.maximumConcurrentRequestsPerHost = 1
        try await CourierClient.withClient(configuration: configuration) { client in
            let blocker = client.start(CourierRequest<Data>(path: "/delay/0.3"))
            for _ in 0..<500 where client.activity.inFlight == 0 { try await Task.sleep(for: .milliseconds(10)) }
            var handles: [RequestHandle<Data>] = []
            for (name, priority) in [("low", RequestPriority.low), ("default", .default), ("high", .high)] {
                var request = CourierRequest<Data>(path: "/anything/\(name)")
                request.priority = priority
                handles.append(client.start(request))
            }
            for _ in 0..<500 where client.activity.waiting < 3 { try await Task.sleep(for: .milliseconds(10)) }
            say("waiting: \(client.activity.waiting), in flight: \(client.activity.inFlight)")
            _ = try await blocker.value
            for handle in handles { _ = try await handle.value }
        }
        let order = server.receivedRequests.map(\.path).filter { $0.hasPrefix("/anything/") }.suffix(3)
        say("the server saw them in this order: \(order.joined(separator: ", "))")
    }

    func runBatch() async throws {
        var batch = Batch(mode: .settle, maximumConcurrency: 4)
        let pages = (1...10).map { batch.add(CourierRequest<Echo>(path: "/delay/0.05?page=\($0)")) }
        let text = batch.add(CourierRequest<String>(path: "/base64/ZG9uZQ=="))
        let missing = batch.add(CourierRequest<Data>(path: "/status/404"))
        let handle = client.start(batch)
        var reported: [String] = []
        for await progress in handle.progress where progress.completed.isMultiple(of: 4) || progress.completed == progress.total {
            reported.append("\(progress.completed)/\(progress.total)")
        }
        let results = try await handle.results
        say("progress: \(reported.joined(separator: " → "))")
        say("\(pages.count) pages decoded; text \"\(try results.value(for: text))\"; request \(missing.index) failed alone: \(results.failedIndices == [missing.index])")
    }

    func runUpload() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("report.csv")
        try Data(String(repeating: "day,requests\n", count: 40_000).utf8).write(to: file)
        var form = MultipartForm()
        form.addField("weekly", named: "kind")
        form.addFile(at: file, named: "report")
        var upload = CourierRequest<CourierResponse>(method: .post, path: "/multipart", body: try .multipart(form))
        let updates = NIOLockedValueBox(0)
        upload.uploadProgress = { _ in updates.withLockedValue { $0 += 1 } }
        let response = try await client.send(upload)
        var parts = 0
        if case .array(let listed)? = try response.json()["parts"] { parts = listed.count }
        say("sent \(try FileManager.default.attributesOfItem(atPath: file.path)[.size] ?? 0) bytes of file in \(parts) parts; \(updates.withLockedValue { $0 }) progress updates")
    }

    func runDownload() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = 4 << 20
        var request = CourierRequest<Data>(path: "/range/\(size)?seed=7&drops=2&chunk_delay=0.001")
        // A resume is a retry: the request's own policy allows the two it needs.
        request.retryPolicy = .retries(2)
        let result = try await client.download(request, to: .file(folder.appendingPathComponent("data.bin")))
        let ranges = server.receivedRequests.filter { $0.path == "/range/\(size)" }.compactMap { recorded in
            recorded.headers.first { $0.name.lowercased() == "range" }?.value
        }
        say("\(result.bytes) bytes in \(result.attempts) attempts; the resumed requests asked for \(ranges.joined(separator: ", "))")
    }

    func runAuthenticatedTransfer() async throws {
        var login = ClientConfiguration(baseURL: server.baseURL)
        login.authentication = Authentication(.password(user: "ada", password: "lovelace"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await CourierClient.withClient(configuration: login) { client in
            let file = folder.appendingPathComponent("private.json")
            let result = try await client.download(CourierRequest<Void>(path: "/digest-auth/auth/ada/lovelace/SHA-256"), to: .file(file))
            let challenged = server.receivedRequests.filter { $0.path.hasPrefix("/digest-auth") }.count
            say("downloaded \(result.bytes) bytes after a Digest challenge (\(challenged) requests); the file says \(String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("authenticated") ? "authenticated" : "something else")")
            let size = 8 << 20
            let pieces = try await client.stream(CourierRequest<Void>(path: "/range/\(size)")) { response in
                var (count, bytes) = (0, 0)
                for try await piece in response.body { count += 1; bytes += piece.count }
                return (count, bytes)
            }
            say("streamed \(pieces.1) bytes in \(pieces.0) pieces, never holding the whole body")
        }
    }

    func runChain() async throws {
        let chain = Chain { history in
            switch history.count {
            case 0:
                return .send(CourierRequest<Echo>(path: "/get?step=login&token=t-42"))
            case 1:
                let login: Echo = try history[0].value()
                guard case .string(let token)? = login.args["token"] else { return .stop }
                var request = CourierRequest<Echo>(path: "/anything/orders")
                request.headers.add(name: "X-Token", value: token)
                return .send(request)
            default:
                return .stop
            }
        }
        let history = try await client.run(chain)
        let orders: Echo = try history[1].value()
        say("\(history.count) steps; the second sent X-Token: \(orders.headers["X-Token"] ?? "none"), taken from the first")
    }

    func step(_ number: Int, _ title: String) {
        out.line("")
        out.line("\(number). \(title)")
    }
    func say(_ line: String) { out.line("   \(line)") }

    func runAll() async throws {
        step(1, "GET with parameters, decoded into a Decodable type")
        var get = CourierRequest<Echo>(path: "/get")
        get.parameters = ["q": "swift http", "tags": ["a", "b"], "page": 2]
        let echo = try await client.send(get)
        say("the server saw the arguments \(echo.args.keys.sorted()) (app=demo was added by a URL filter)")

        step(2, "POST an Encodable value as JSON")
        let post = CourierRequest<Echo>(method: .post, path: "/post", body: try .json(Note(title: "Hello", tags: ["x"])))
        say("echoed JSON body: \(try await client.send(post).json.map { "\($0)" } ?? "none")")

        step(3, "Redirects: three hops followed, then one that crosses origins")
        let chain = try await client.response(for: CourierRequest<CourierResponse>(path: "/redirect/3"))
        say("final URL \(chain.url.path) after \(chain.redirects.count) redirects")
        var cross = CourierRequest<Echo>(path: "/redirect-to")
        cross.query = [URLQueryItem(name: "url", value: other.url("/headers").absoluteString)]
        cross.headers.add(name: "Authorization", value: "Bearer secret-token")
        cross = cross.map { response, decoder in
            let headers = try response.decode([String: [String: String]].self, using: decoder)["headers"] ?? [:]
            return Echo(method: "GET", args: [:], headers: headers, json: nil)
        }
        let crossed = try await client.send(cross)
        say("the second origin received Authorization: \(crossed.headers["Authorization"] ?? "no — it was removed")")

        step(4, "Compressed responses are inflated")
        let gzip = try await client.response(for: CourierRequest<CourierResponse>(path: "/gzip"))
        say("Content-Encoding \(gzip.headers["Content-Encoding"] ?? "none"); \(gzip.body.count) bytes after inflating; gzipped = \(try gzip.json()["gzipped"] ?? nil)")

        step(5, "Validation: a 418 is a typed error that carries the response")
        do {
            _ = try await client.send(CourierRequest<Void>(path: "/status/418"))
        } catch let error as CourierError {
            say("\(error.kind): status \(error.response?.status ?? 0)")
        }

        step(6, "Bad input never reaches the wire")
        var injected = CourierRequest<Void>(path: "/get")
        injected.headers.add(name: "X-Note", value: "a\r\nX-Injected: 1")
        let before = server.receivedRequests.count
        do {
            try await client.send(injected)
        } catch let error as CourierError {
            say("\(error.kind); requests the server received meanwhile: \(server.receivedRequests.count - before)")
        }

        step(7, "A total timeout")
        var slow = CourierRequest<Void>(path: "/delay/2")
        slow.timeout = .milliseconds(300)
        do {
            try await client.send(slow)
        } catch let error as CourierError {
            say("\(error.kind) after 300 ms")
        }

        step(8, "A retry that honours Retry-After")
        var flaky = CourierRequest<Echo>(path: "/flaky?failures=1&status=503&retry_after=1")
        flaky.retryPolicy = .retries(2)
        let started = ContinuousClock.now
        _ = try await client.send(flaky)
        say("503 with Retry-After: 1, then 200 after waiting \(ContinuousClock.now - started)")

        step(9, "Priorities: with one slot per host, the high-priority request goes first")
        try await priorities()

        step(10, "A batch: twelve requests of three types, four at a time, with progress")
        try await runBatch()

        step(11, "A chain: each step decides the next from the results so far")
        try await runChain()

        step(12, "A multipart upload streamed from disk, with progress")
        try await runUpload()

        step(13, "A download whose connection drops twice, resumed with Range and If-Range")
        try await runDownload()

        step(14, "An HTTP cache in a folder: a hit, a revalidation and cached-then-fresh")
        try await runCache()

        step(15, "Cancellation through a handle")
        let handle = client.start(CourierRequest<Void>(path: "/drip?numbytes=10&duration=3"))
        try await Task.sleep(for: .milliseconds(200))
        handle.cancel()
        do {
            try await handle.value
        } catch let error as CourierError {
            say("\(error.kind); handle state \(handle.state)")
        }

        step(16, "A durable request queued while the server is down, delivered when it is back")
        try await runQueue()

        step(17, "A download behind a login, and a body streamed as it arrives, on the same path as every request")
        try await runAuthenticatedTransfer()

        step(18, "Server-Sent Events: a stream dropped mid-event twice, resumed with Last-Event-ID")
        try await runEventStream()
    }

    /// Reads a stream that drops after every second event, half an event sent: each whole
    /// event arrives once, and each reconnection says where to carry on.
    func runEventStream() async throws {
        var ids: [String] = []
        for try await event in client.events(CourierRequest<Void>(path: "/events?count=6&retry=100&drop-after=2&type=tick")) {
            ids.append(event.id ?? "none")
        }
        let resumedAfter = server.receivedRequests.filter { $0.uri.hasPrefix("/events") }.compactMap { $0.header("Last-Event-ID") }
        say("\(ids.count) \(ids.count == 1 ? "event" : "events") with ids \(ids.joined(separator: ", ")); reconnections sent Last-Event-ID \(resumedAfter.joined(separator: ", ")) (the last one heard 204)")
    }
}
