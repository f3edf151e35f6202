// swift-format-ignore-file
// Written by scripts/doc-samples.py from the Courier catalog; do not edit.

import CoreMetrics
import Courier
import CourierImages
import CourierLifecycle
import CourierLimitsPostgres
import CourierOpenAPI
import CourierQueue
import CourierCachePostgres
import CourierQueuePostgres
import CourierServerSentEvents
import CourierTesting
import CourierURLSession
import CourierWebSockets
import CourierXML
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import ServiceLifecycle
import Testing

extension Samples {
    /// Sources/Courier/Courier.docc/AuthenticatingRequests.md, sample 1
    static func authenticatingRequests1(_ context: SampleContext) async throws {
        var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com/v1")!)
        configuration.authentication = Authentication(.password(user: "ada", password: "s3cret"))
        configuration.authentication.add(
            .bearer("files-token"),
            for: .origin(URL(string: "https://files.example.com")!)
        )
    }

    /// Sources/Courier/Courier.docc/AuthenticatingRequests.md, sample 2
    static func authenticatingRequests2(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let password = context.password
        _ = password
        do {
            _ = try await client.send(CourierRequest<Profile>(path: "/me"))
        } catch let error as CourierError where error.kind == .authenticationFailed {
            print(error.response?.status ?? 0)    // 401: ask the user for the password again
        }
    }

    /// Sources/Courier/Courier.docc/AuthenticatingRequests.md, sample 3
    static func authenticatingRequests3(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        let savedToken = context.savedToken
        _ = savedToken
        let signIn = context.signIn
        _ = signIn
        actor Session: TokenProvider {
            private var current: String
            private let signIn: @Sendable () async throws -> String

            init(token: String, signIn: @escaping @Sendable () async throws -> String) {
                self.current = token
                self.signIn = signIn
            }

            func token() async throws -> String { current }

            func refreshedToken(replacing rejected: String) async throws -> String? {
                current = try await signIn()
                return current
            }
        }

        configuration.authentication = Authentication(.bearer(Session(token: savedToken, signIn: signIn)))
    }

    /// Sources/Courier/Courier.docc/BatchesAndChains.md, sample 1
    static func batchesAndChains1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var batch = Batch(mode: .failFast, maximumConcurrency: 4)
        let user = batch.add(CourierRequest<User>(path: "/users/1"))
        let avatar = batch.add(CourierRequest<Data>(path: "/users/1/avatar"))

        let results = try await client.run(batch)
        let name = try results.value(for: user).name
        let bytes = try results.value(for: avatar)
    }

    /// Sources/Courier/Courier.docc/BatchesAndChains.md, sample 2
    static func batchesAndChains2(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var batch = Batch(mode: .settle, maximumConcurrency: 16)
        let pages = batch.add(count: 20_000) { CourierRequest<Data>(path: "/pages/\($0)") }
        let results = try await client.run(batch)
        let first = try results.value(for: pages[0])
    }

    /// Sources/Courier/Courier.docc/BatchesAndChains.md, sample 3
    static func batchesAndChains3(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let batch = context.batch
        _ = batch
        let handle = client.start(batch)
        for await progress in handle.progress {
            print("\(progress.completed) of \(progress.total) done")
        }
        let results = try await handle.results
    }

    /// Sources/Courier/Courier.docc/BatchesAndChains.md, sample 4
    static func batchesAndChains4(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let session = context.session
        _ = session
        let chain = Chain { history in
            switch history.count {
            case 0:
                return .send(CourierRequest<Session>(method: .post, path: "/login"))
            case 1:
                let session: Session = try history[0].value()
                var orders = CourierRequest<[Order]>(path: "/orders")
                orders.headers.add(name: "Authorization", value: "Bearer \(session.token)")
                return .send(orders)
            default:
                return .stop
            }
        }
        let history = try await client.run(chain)
        let orders: [Order] = try history[1].value()
    }

    /// Sources/Courier/Courier.docc/Caching.md, sample 1
    static func caching1(_ context: SampleContext) async throws {
        var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.cache = CacheConfiguration(storage: MemoryCacheStorage(maximumBytes: 32 << 20))
        let client = CourierClient(configuration: configuration)
    }

    /// Sources/Courier/Courier.docc/Caching.md, sample 2
    static func caching2(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        let folder = URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache/my-app")
        let storage = TieredCacheStorage(
            front: MemoryCacheStorage(maximumBytes: 16 << 20),
            back: try DiskCacheStorage(directory: folder, maximumBytes: 256 << 20)
        )
        configuration.cache = CacheConfiguration(storage: storage)
    }

    /// Sources/Courier/Courier.docc/Caching.md, sample 3
    static func caching3(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        configuration.cache = CacheConfiguration(storage: MemoryCacheStorage())
        configuration.cache?.isShared = true
    }

    /// Sources/Courier/Courier.docc/Caching.md, sample 4
    static func caching4(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        for try await response in client.cachedThenFresh(CourierRequest<CourierResponse>(path: "/feed")) {
            render(response.body, stale: response.source == .stale)
        }
        let latest = try await client.cachedThenFresh(CourierRequest<CourierResponse>(path: "/feed")).last()
    }

    /// Sources/Courier/Courier.docc/Concurrency.md, sample 1
    static func concurrency1(_ context: SampleContext) async throws {
        var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.limits.maximumConcurrentRequestsPerHost = 8
        configuration.limits.adaptiveConcurrency = AdaptiveConcurrency(initialLimit: 2, minimumLimit: 1)
        let client = CourierClient(configuration: configuration)
    }

    /// Sources/Courier/Courier.docc/Concurrency.md, sample 2
    static func concurrency2(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var request = context.request
        _ = request
        let handle = client.start(request)
        handle.changePriority(to: .high)
    }

    /// Sources/Courier/Courier.docc/Concurrency.md, sample 3
    static func concurrency3(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let indicator = context.indicator
        _ = indicator
        for await activity in client.activityUpdates() {
            indicator.isVisible = activity.isActive
        }
    }

    /// Sources/Courier/Courier.docc/Concurrency.md, sample 4
    static func concurrency4(_ context: SampleContext) async throws {
        var request = CourierRequest<Data>(path: "/live/feed")
        request.allowsCoalescing = false

        var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.coalescesRequests = false
    }

    /// Sources/Courier/Courier.docc/Concurrency.md, sample 5
    static func concurrency5(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let ids = context.ids
        _ = ids
        let executor = client.makeTaskExecutor()
        try await withTaskExecutorPreference(executor) {
            for id in ids {
                _ = try await client.send(CourierRequest<Data>(path: "/items/\(id)"))
            }
        }
    }

    /// Sources/Courier/Courier.docc/CookiesAndProxies.md, sample 1
    static func cookiesAndProxies1(_ context: SampleContext) async throws {
        var configuration = ClientConfiguration(baseURL: URL(string: "https://shop.example.com")!)
        configuration.cookies = CookieJar()
    }

    /// Sources/Courier/Courier.docc/CookiesAndProxies.md, sample 2
    static func cookiesAndProxies2(_ context: SampleContext) async throws {
        let fixedDate = context.fixedDate
        _ = fixedDate
        let jar = CookieJar(now: { fixedDate })
        jar.store(setCookie: "id=42; Max-Age=60; Path=/", from: URL(string: "https://example.com/login")!)
        jar.cookieHeader(for: URL(string: "https://example.com/account")!)  // "id=42"
    }

    /// Sources/Courier/Courier.docc/CookiesAndProxies.md, sample 3
    static func cookiesAndProxies3(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        let jar = try CookieJar(file: URL(fileURLWithPath: "cookies.json"))
        configuration.cookies = jar
        // … requests …
        try jar.save()
    }

    /// Sources/Courier/Courier.docc/CookiesAndProxies.md, sample 4
    static func cookiesAndProxies4(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        let file = URL(fileURLWithPath: "cookies.txt")
        let jar = CookieJar(savingTo: file, format: .netscape)
        try jar.addCookies(from: file)  // a missing file adds none
        configuration.cookies = jar
        // … requests …
        try jar.save()
    }

    /// Sources/Courier/Courier.docc/CookiesAndProxies.md, sample 5
    static func cookiesAndProxies5(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        let password = context.password
        _ = password
        configuration.proxy = Proxy(host: "proxy.internal", port: 3128, user: "ada", password: "s3cret")
        // or, with the user and password percent-encoded in the URL:
        configuration.proxy = try Proxy(url: URL(string: "http://ada:s3cret@proxy.internal:3128")!)
    }

    /// Sources/Courier/Courier.docc/CookiesAndProxies.md, sample 6
    static func cookiesAndProxies6(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        configuration.proxy = try Proxy(url: URL(string: "socks5h://ada:s3cret@gateway.internal:1080")!)
        // or: Proxy(host: "gateway.internal", port: 1080, user: "ada", password: "s3cret", kind: .socks5h)
    }

    /// Sources/Courier/Courier.docc/CookiesAndProxies.md, sample 7
    static func cookiesAndProxies7(_ context: SampleContext) async throws {
        var configuration = ClientConfiguration()
        configuration.proxyEnvironment = .current
        // or a dictionary of its own:
        configuration.proxyEnvironment = ProxyEnvironment(["https_proxy": "http://proxy.internal:3128", "no_proxy": "localhost,10.0.0.0/8"])
    }

    /// Sources/Courier/Courier.docc/CookiesAndProxies.md, sample 8
    static func cookiesAndProxies8(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        configuration.sensitiveHeaders = ["X-Api-Key"]
    }

    /// Sources/Courier/Courier.docc/Courier.md, sample 1
    static func courier1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        struct User: Codable, Sendable { let id: Int; let name: String }

        try await CourierClient.withClient(configuration: .init(baseURL: URL(string: "https://api.example.com")!)) { client in
            let user = try await client.send(CourierRequest<User>(path: "/users/1"))
        }
    }

    /// Sources/Courier/Courier.docc/ErrorHandling.md, sample 1
    static func errorHandling1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        do {
            let user = try await client.send(CourierRequest<User>(path: "/users/1"))
        } catch let error as CourierError where error.status == 404 {
            print("no such user")                        // the response is kept: error.response
        } catch let error as CourierError where error.kind == .validationFailed {
            print("refused with \(error.status ?? 0) after \(error.attempts) attempts")
        } catch let error as CourierError where error.kind == .timeout {
            // try again later
        }
    }

    /// Sources/Courier/Courier.docc/ErrorHandling.md, sample 2
    static func errorHandling2(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var request = context.request
        _ = request
        do {
            _ = try await client.send(request)
        } catch let error as CourierError where error.connectionFailure == .hostNotFound {
            // check the host name
        }
    }

    /// Sources/Courier/Courier.docc/GettingStarted.md, sample 1
    static func gettingStarted1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        struct Repository: Decodable, Sendable {
            let id: Int
            let name: String
        }

        var everyday = ClientConfiguration(baseURL: URL(string: "https://api.example.com/v1")!)
        everyday.defaultHeaders = ["Accept": "application/json", "User-Agent": "my-app/1.0"]
        everyday.timeouts.total = .seconds(30)      // the whole call, retries and redirects included
        everyday.retryPolicy = .retries(2)          // up to 2 more attempts, with backoff
        everyday.observers.append(EventHooks(willRetry: { event in
            print("attempt \(event.attempt) of \(event.request.url) failed; waiting \(event.retryDelay ?? .zero)")
        }))
        try await CourierClient.withClient(configuration: everyday) { client in
            do {
                let repository = try await client.send(CourierRequest<Repository>(path: "/repos/42"))
                print(repository.name)
            } catch let error as CourierError where error.status == 404 {
                print("no such repository")
            } catch let error as CourierError {
                print("gave up after \(error.attempts) attempts: \(error)")
            }
        }
    }

    /// Sources/Courier/Courier.docc/GettingStarted.md, sample 2
    static func gettingStarted2(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let echo = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/echo")
        var options = CourierRequestOptions()
        options.timeout = .seconds(10)
        let (text, trailers) = try await client.perform(
            request: echo,
            body: .restartable { writer in
                try await writer.write(Data("Hello World".utf8))
                return [HTTPField.Name("X-Checksum")!: "1052"]
            },
            options: options
        ) { response, body in
            try await body.collect(upTo: 1024 * 1024) { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Sources/Courier/Courier.docc/InterceptorsAndLifecycle.md, sample 1
    static func interceptorsAndLifecycle1(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        let requestMetrics = context.requestMetrics
        _ = requestMetrics
        configuration.observers.append(MetricsObserver(factory: requestMetrics))
    }

    /// Sources/Courier/Courier.docc/Retries.md, sample 1
    static func retries1(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        var request = context.request
        _ = request
        configuration.retryPolicy = .retries(3)           // up to 3 more attempts
        request.retryPolicy = .none                       // never, for this request
    }

    /// Sources/Courier/Courier.docc/Security.md, sample 1
    static func security1(_ context: SampleContext) async throws {
        var configuration = ClientConfiguration(baseURL: URL(string: "https://internal.example")!)
        configuration.tls.trustRoots = .system(adding: [.file("/etc/company/ca.pem")])
        // or, for a service that must only ever present your CA's certificates:
        configuration.tls.trustRoots = .only([.file("/etc/company/ca.pem")])
    }

    /// Sources/Courier/Courier.docc/Security.md, sample 2
    static func security2(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        configuration.tls.pins = [
            HostPins(
                host: "*.example.com",
                pins: [
                    try Pin("sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="),  // the key in use
                    try Pin("sha256/YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg="),  // a backup key, kept offline
                ],
                expires: Date(timeIntervalSinceNow: 60 * 60 * 24 * 180)
            )
        ]
    }

    /// Sources/Courier/Courier.docc/Security.md, sample 3
    static func security3(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var configuration = context.configuration
        _ = configuration
        let p12Password = context.p12Password
        _ = p12Password
        configuration.tls.clientIdentity = .pem(certificate: .file("client.pem"), privateKey: .file("client.key"))
        configuration.tls.hostIdentities["payments.example.com"] = .pkcs12(.file("payments.p12"), password: p12Password)
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 1
    static func uploadsAndDownloads1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var form = MultipartForm()
        form.addField("Ada Lovelace", named: "name")
        form.addFile(at: URL(fileURLWithPath: "/var/uploads/portrait.jpg"), named: "avatar")
        form.addData(Data("a,b\n1,2\n".utf8), named: "table", filename: "table.csv")

        let request = CourierRequest<CourierResponse>(method: .post, path: "/profile", body: try .multipart(form))
        let response = try await client.send(request)
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 2
    static func uploadsAndDownloads2(_ context: SampleContext) async throws {
        var request = context.request
        _ = request
        var form = context.form
        _ = form
        do throws(CourierError) {
            request.body = try .multipart(form)
        } catch {
            print(error.message)   // "The file /var/uploads/portrait.jpg cannot be read (…); check the path…"
        }
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 3
    static func uploadsAndDownloads3(_ context: SampleContext) async throws {
        var upload = CourierRequest<CourierResponse>(method: .put, path: "/backups/latest.tar")
        upload.body = try .file(URL(fileURLWithPath: "/var/backups/latest.tar"), contentType: "application/x-tar")
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 4
    static func uploadsAndDownloads4(_ context: SampleContext) async throws {
        var fixture = try MultipartForm(boundary: "fixture-boundary")
        fixture.addField("1", named: "id")
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 5
    static func uploadsAndDownloads5(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var form = context.form
        _ = form
        var upload = CourierRequest<CourierResponse>(method: .post, path: "/videos", body: try .multipart(form))
        upload.uploadProgress = { progress in
            print("\(progress.completedBytes) of \(progress.totalBytes ?? 0) bytes")
        }
        _ = try await client.send(upload)
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 6
    static func uploadsAndDownloads6(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var upload = context.upload
        _ = upload
        let handle = client.start(upload)
        for await progress in handle.uploadProgress {
            print("\(Int((progress.fractionCompleted ?? 0) * 100)) %")
        }
        let response = try await handle.value
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 7
    static func uploadsAndDownloads7(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let result = try await client.download(
            CourierRequest<Void>(path: "/exports/2024.csv"),
            to: .file(URL(fileURLWithPath: "/var/exports/2024.csv"))
        )
        print("\(result.bytes) bytes in \(result.fileURL.path)")
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 8
    static func uploadsAndDownloads8(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let saved = try await client.download(
            CourierRequest<Void>(path: "/reports/latest"),
            to: .directory(URL(fileURLWithPath: "/var/reports", isDirectory: true))
        )
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 9
    static func uploadsAndDownloads9(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var request = CourierRequest<Void>(path: "/videos/launch.mp4")
        request.retryPolicy = .retries(4)
        let saved = try await client.download(request, to: .file(URL(fileURLWithPath: "/var/videos/launch.mp4")))
        print("\(saved.bytes) bytes in \(saved.attempts) attempts")
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 10
    static func uploadsAndDownloads10(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let handle = client.startDownload(
            CourierRequest<Void>(path: "/videos/launch.mp4"),
            to: .file(URL(fileURLWithPath: "/var/videos/launch.mp4"))
        )
        handle.pause()    // stops the transfer; the partial file and the record stay
        handle.resume()   // continues from the bytes on disk
        let video = try await handle.value
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 11
    static func uploadsAndDownloads11(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let exportFile = context.exportFile
        _ = exportFile
        let options = DownloadOptions(progress: { progress in
            print("\(progress.completedBytes) of \(progress.totalBytes ?? 0) bytes")
        })
        _ = try await client.download(CourierRequest<Void>(path: "/exports/2024.csv"), to: .file(exportFile), options: options)
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 12
    static func uploadsAndDownloads12(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var upload = CourierRequest<CourierResponse>(method: .post, path: "/ingest")
        upload.body = .writing(contentType: "application/x-ndjson") { writer in
            var bytes = 0
            for index in 0..<3 {
                let line = Data("{\"row\":\(index)}\n".utf8)
                bytes += line.count
                try await writer.write(line)
            }
            return ["X-Rows": "3", "X-Bytes": String(bytes)]
        }
        let response = try await client.send(upload)
        print(response.trailers["Grpc-Status"] ?? "no status trailer")
    }

    /// Sources/Courier/Courier.docc/UploadsAndDownloads.md, sample 13
    static func uploadsAndDownloads13(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let (replies, reply) = AsyncStream<Data>.makeStream()
        var chat = CourierRequest<CourierResponse>(method: .post, path: "/chat")
        chat.body = .writing { writer in
            try await writer.write(Data("hello\n".utf8))
            for await line in replies where line != Data("bye\n".utf8) {
                try await writer.write(line)
            }
            return [:]
        }
        chat.body?.isDuplex = true
        try await client.stream(chat) { response in
            for try await piece in response.body { reply.yield(piece) }
            reply.finish()
        }
    }

    /// Sources/Courier/Authentication/Authentication.swift, sample 1
    static func authentication1(_ context: SampleContext) async throws {
        let session = context.session
        _ = session
        var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.authentication = Authentication(.password(user: "ada", password: "s3cret"))
        configuration.authentication.add(.bearer(session), for: .origin(URL(string: "https://files.example.com")!))
    }

    /// Sources/Courier/Authentication/Credential.swift, sample 1
    static func credential1(_ context: SampleContext) async throws {
        let session = context.session
        _ = session
        let password = Credential.password(user: "ada", password: "s3cret")
        let token = Credential.bearer(session)        // a TokenProvider, refreshed on 401
    }

    /// Sources/Courier/Authentication/TokenProvider.swift, sample 1
    static func tokenProvider1(_ context: SampleContext) async throws {
        actor Session: TokenProvider {
            private var current = "initial-token"
            func token() async throws -> String { current }
            func refreshedToken(replacing rejected: String) async throws -> String? {
                current = try await signInAgain()
                return current
            }
        }
    }

    /// Sources/Courier/Cache/AppCachePolicy.swift, sample 1
    static func appCachePolicy1(_ context: SampleContext) async throws {
        var request = context.request
        _ = request
        let server = context.server
        _ = server
        var policy = AppCachePolicy()
        policy.version = 2                              // entries stored under another version are misses
        policy.defaultFreshness = .seconds(600)         // for responses that say nothing about caching
        policy.imageFreshness = .seconds(7 * 86_400)    // for images that say nothing about caching
        policy.servesStaleWhenOffline = true            // the stored response when the server is unreachable
        request.appCachePolicy = AppCachePolicy(fixedLifetime: .seconds(60))
    }

    /// Sources/Courier/Cache/CacheConfiguration.swift, sample 1
    static func cacheConfiguration1(_ context: SampleContext) async throws {
        var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.cache = CacheConfiguration(storage: MemoryCacheStorage(maximumBytes: 16 << 20))
        configuration.cache?.policy.defaultFreshness = .seconds(600)
    }

    /// Sources/Courier/Cache/CourierClient+Cache.swift, sample 1
    static func courierClientCache1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        for try await response in client.cachedThenFresh(CourierRequest<CourierResponse>(path: "/feed")) {
            show(response)
        }
    }

    /// Sources/Courier/Cache/Storage/DiskCacheStorage.swift, sample 1
    static func diskCacheStorage1(_ context: SampleContext) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cache")
        let disk = try DiskCacheStorage(directory: folder, maximumBytes: 100 * 1024 * 1024)
    }

    /// Sources/Courier/Cache/Storage/TieredCacheStorage.swift, sample 1
    static func tieredCacheStorage1(_ context: SampleContext) async throws {
        let memory = context.memory
        _ = memory
        let folder = context.folder
        _ = folder
        let storage = TieredCacheStorage(front: memory, back: try DiskCacheStorage(directory: folder))
    }

    /// Sources/Courier/Client/ClientConfiguration.swift, sample 1
    static func clientConfiguration1(_ context: SampleContext) async throws {
        var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com/v1")!)
        configuration.defaultHeaders.add(name: "Accept", value: "application/json")
        configuration.timeouts.total = .seconds(30)
    }

    /// Sources/Courier/Client/CourierClient+TaskExecutor.swift, sample 1
    static func courierClientTaskExecutor1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let ids = context.ids
        _ = ids
        let executor = client.makeTaskExecutor()
        try await withTaskExecutorPreference(executor) {
            for id in ids { _ = try await client.send(CourierRequest<Data>(path: "/items/\(id)")) }
        }
    }

    /// Sources/Courier/Client/CourierClient.swift, sample 1
    static func courierClient1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        try await CourierClient.withClient(configuration: .init(baseURL: URL(string: "https://api.example.com")!)) { client in
            let user = try await client.send(CourierRequest<User>(path: "/users/1"))
        }
    }

    /// Sources/Courier/Client/Limits.swift, sample 1
    static func limits1(_ context: SampleContext) async throws {
        var configuration = ClientConfiguration()
        // Sixteen connections per host, and so sixteen requests in flight per host.
        configuration.limits.maximumConnectionsPerHost = 16
    }

    /// Sources/Courier/Client/RequestHandle.swift, sample 1
    static func requestHandle1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var upload = context.upload
        _ = upload
        let handle = client.start(upload)
        for await progress in handle.uploadProgress {
            print("\(Int((progress.fractionCompleted ?? 0) * 100)) %")
        }
        let response = try await handle.value
    }

    /// Sources/Courier/Cookies/CookieJar.swift, sample 1
    static func cookieJar1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var configuration = ClientConfiguration()
        configuration.cookies = try CookieJar(file: URL(fileURLWithPath: "cookies.json"))
        try await CourierClient.withClient(configuration: configuration) { client in
            _ = try await client.response(for: CourierRequest<CourierResponse>(path: "https://example.com/login"))
        }
        try configuration.cookies?.save()
    }

    /// Sources/Courier/Cookies/PublicSuffixList.swift, sample 1
    static func publicSuffixList1(_ context: SampleContext) async throws {
        PublicSuffixList.mozilla.publicSuffix(of: "www.example.co.uk")      // "co.uk"
        PublicSuffixList.mozilla.registrableDomain(of: "www.example.co.uk") // "example.co.uk"
        PublicSuffixList.mozilla.isPublicSuffix("github.io")                // true
    }

    /// Sources/Courier/Errors/CourierError.swift, sample 1
    static func courierError1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var request = context.request
        _ = request
        do {
            _ = try await client.send(request)
        } catch let error as CourierError where error.kind == .timeout {
            // retry later
        }
    }

    /// Sources/Courier/Interceptors/ErrorMapper.swift, sample 1
    static func errorMapper1(_ context: SampleContext) async throws {
        ErrorMapper(response: { response in
            response.status == 200 && response.headers["X-API-Error"] != nil
                ? APIError(code: response.headers["X-API-Error"]!) : nil
        })
    }

    /// Sources/Courier/Interceptors/Interceptor.swift, sample 1
    static func interceptor1(_ context: SampleContext) async throws {
        var request = context.request
        _ = request
        struct Timing: Interceptor {
            func intercept(_ request: CourierHTTPRequest, next: Next) async throws -> CourierResponse {
                let start = ContinuousClock.now
                defer { print(request.url, ContinuousClock.now - start) }
                return try await next(request)
            }
        }
    }

    /// Sources/Courier/Interop/CourierClient+HTTPTypes.swift, sample 1
    static func courierClientHTTPTypes1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let request = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/echo")
        let (echo, trailers) = try await client.perform(
            request: request,
            body: .restartable { writer in
                try await writer.write(Data("Hello World".utf8))
                return nil
            }
        ) { response, body in
            try await body.collect(upTo: 1024) { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Sources/Courier/Interop/CourierRequestOptions.swift, sample 1
    static func courierRequestOptions1(_ context: SampleContext) async throws {
        var options = CourierRequestOptions()
        options.timeout = .seconds(10)
        options.priority = .high
        options.retryPolicy = .retries(2)
    }

    /// Sources/Courier/Lifecycle/MetricsObserver.swift, sample 1
    static func metricsObserver1(_ context: SampleContext) async throws {
        let requestMetrics = context.requestMetrics
        _ = requestMetrics
        var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.observers.append(MetricsObserver(factory: requestMetrics))
    }

    /// Sources/Courier/Lifecycle/RequestObserver.swift, sample 1
    static func requestObserver1(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        configuration.observers.append(EventHooks(didStop: { event in
            print(event.request.url, event.state, event.elapsed)
        }))
    }

    /// Sources/Courier/Orchestration/Batch.swift, sample 1
    static func batch1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var batch = Batch(mode: .failFast, maximumConcurrency: 4)
        let user = batch.add(CourierRequest<User>(path: "/users/1"))
        let avatar = batch.add(CourierRequest<Data>(path: "/users/1/avatar"))
        let results = try await client.run(batch)
        let name = try results.value(for: user).name
        let bytes = try results.value(for: avatar)
    }

    /// Sources/Courier/Orchestration/Batch.swift, sample 2
    static func batch2(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var batch = Batch(mode: .settle, maximumConcurrency: 16)
        let pages = batch.add(count: 20_000) { CourierRequest<Data>(path: "/pages/\($0)") }
        let results = try await client.run(batch)
        let first = try results.value(for: pages[0])
    }

    /// Sources/Courier/Orchestration/Chain.swift, sample 1
    static func chain1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var request = context.request
        _ = request
        let session = context.session
        _ = session
        let chain = Chain { history in
            switch history.count {
            case 0:
                return .send(CourierRequest<Session>(method: .post, path: "/login"))
            case 1:
                let session: Session = try history[0].value()
                var request = CourierRequest<[Order]>(path: "/orders")
                request.headers.add(name: "Authorization", value: "Bearer \(session.token)")
                return .send(request)
            default:
                return .stop
            }
        }
        let history = try await client.run(chain)
    }

    /// Sources/Courier/Pipeline/CourierClient+Stream.swift, sample 1
    static func courierClientStream1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let bytes = try await client.stream(CourierRequest<Void>(path: "/export.csv")) { response in
            var count = 0
            for try await piece in response.body { count += piece.count }
            return count
        }
    }

    /// Sources/Courier/Proxies/Proxy.swift, sample 1
    static func proxy1(_ context: SampleContext) async throws {
        var configuration = ClientConfiguration()
        configuration.proxy = Proxy(host: "proxy.internal", port: 3128, user: "ada", password: "s3cret")
        // or: configuration.proxy = try Proxy(url: URL(string: "http://ada:s3cret@proxy.internal:3128")!)
    }

    /// Sources/Courier/Proxies/Proxy.swift, sample 2
    static func proxy2(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        configuration.proxy = try Proxy(url: URL(string: "socks5h://ada:s3cret@gateway.internal:1080")!)
    }

    /// Sources/Courier/Proxies/ProxyEnvironment.swift, sample 1
    static func proxyEnvironment1(_ context: SampleContext) async throws {
        var configuration = ClientConfiguration()
        configuration.proxyEnvironment = .current   // http_proxy, https_proxy, all_proxy, no_proxy
    }

    /// Sources/Courier/Request/CourierEndpoint.swift, sample 1
    static func courierEndpoint1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        struct GetUser: CourierEndpoint {
            typealias Value = User
            let id: Int
            var path: String { "/users/\(id)" }
        }
        let user = try await client.send(GetUser(id: 1))
    }

    /// Sources/Courier/Request/CourierRequest.swift, sample 1
    static func courierRequest1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        struct User: Decodable, Sendable { let id: Int; let name: String }

        var request = CourierRequest<User>(path: "/users/1")
        request.headers.add(name: "X-Trace", value: "1")
        let user = try await client.send(request)
    }

    /// Sources/Courier/Request/CourierRequestBody.swift, sample 1
    static func courierRequestBody1(_ context: SampleContext) async throws {
        var request = context.request
        _ = request
        request.body = .text("hello")
        request.body = .form(["q": "swift", "page": 2])
        request.body = try .json(User(name: "Ada"))
    }

    /// Sources/Courier/Response/JSONTemplate.swift, sample 1
    static func jSONTemplate1(_ context: SampleContext) async throws {
        let template: JSONTemplate = .object([
            "id": .number,
            "name": .string,
            "tags": .array(of: .string),
            "nickname": .optional(.string),
        ])
    }

    /// Sources/Courier/Response/ResponseValidator.swift, sample 1
    static func responseValidator1(_ context: SampleContext) async throws {
        var request = context.request
        _ = request
        request.validators = [.statusCode(200..<300), .contentType(["application/json"])]
    }

    /// Sources/Courier/Retry/CourierRetryPolicy.swift, sample 1
    static func courierRetryPolicy1(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        configuration.retryPolicy = CourierRetryPolicy(maximumAttempts: 4)
    }

    /// Sources/Courier/Scheduling/AdaptiveConcurrency.swift, sample 1
    static func adaptiveConcurrency1(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        configuration.limits.maximumConcurrentRequestsPerHost = 8
        configuration.limits.adaptiveConcurrency = AdaptiveConcurrency(initialLimit: 2)
    }

    /// Sources/Courier/Scheduling/OriginBudget.swift, sample 1
    static func originBudget1(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        let database = URL(string: "postgres://app@db.internal/app")!
        configuration.originBudget = try PostgresOriginBudget(url: database, maximumConcurrentRequestsPerOrigin: 8)
    }

    /// Sources/Courier/Security/ClientIdentity.swift, sample 1
    static func clientIdentity1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let password = context.password
        _ = password
        let identity = ClientIdentity.pem(certificate: .file("client.pem"), privateKey: .file("client.key"))
        let bundled = ClientIdentity.pkcs12(.file("client.p12"), password: password)
    }

    /// Sources/Courier/Security/MinimumTLSVersion.swift, sample 1
    static func minimumTLSVersion1(_ context: SampleContext) async throws {
        let server = context.server
        _ = server
        var configuration = ClientConfiguration()
        configuration.tls.minimumVersion = .tls13                 // stricter
        configuration.tls.minimumVersion = .insecureTLS11         // a legacy server you cannot fix
    }

    /// Sources/Courier/Security/TLSPolicy.swift, sample 1
    static func tLSPolicy1(_ context: SampleContext) async throws {
        var tls = TLSPolicy()
        tls.trustRoots = .system(adding: [.file("corporate-ca.pem")])
        tls.pins = [HostPins(host: "*.example.com", pins: [try Pin("sha256/..."), try Pin("sha256/...")])]
    }

    /// Sources/Courier/Transfers/CourierRequestBody+Multipart.swift, sample 1
    static func courierRequestBodyMultipart1(_ context: SampleContext) async throws {
        var request = context.request
        _ = request
        request.body = try .file(URL(fileURLWithPath: "backup.tar"), contentType: "application/x-tar")
    }

    /// Sources/Courier/Transfers/Downloads/DownloadHandle.swift, sample 1
    static func downloadHandle1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var request = context.request
        _ = request
        let downloads = context.downloads
        _ = downloads
        let handle = client.startDownload(CourierRequest<Data>(path: "/big.iso"), to: .directory(downloads))
        Task { for await progress in handle.progress { print(progress) } }
        handle.pause()      // the partial file and its resume record stay on disk
        handle.resume()     // continues with a Range request
        let file = try await handle.value.fileURL
    }

    /// Sources/Courier/Transfers/MultipartForm.swift, sample 1
    static func multipartForm1(_ context: SampleContext) async throws {
        var request = context.request
        _ = request
        var form = MultipartForm()
        form.addField("Ada", named: "name")
        form.addFile(at: URL(fileURLWithPath: "/tmp/portrait.png"), named: "avatar")
        form.addData(Data("a,b\n".utf8), named: "table", filename: "table.csv")
        request.body = try .multipart(form)
    }

    /// Sources/Courier/Transfers/Writing/CourierRequestBody+Restartability.swift, sample 1
    static func courierRequestBodyRestartability1(_ context: SampleContext) async throws {
        let body = CourierRequestBody.restartable(knownLength: 11) { writer in
            try await writer.write(Data("Hello World".utf8))
            return nil
        }
    }

    /// Sources/Courier/Transfers/Writing/RequestBodyWriter.swift, sample 1
    static func requestBodyWriter1(_ context: SampleContext) async throws {
        var request = context.request
        _ = request
        let lines = ["first line\n", "second line\n"]
        request.body = .writing { writer in
            var checksum = 0
            for line in lines {
                let bytes = Data(line.utf8)
                checksum = bytes.reduce(checksum) { ($0 &+ Int($1)) & 0xFFFF }
                try await writer.write(bytes)
            }
            return ["X-Checksum": String(checksum)]
        }
    }

    /// Sources/Courier/Transport/ConnectionOverrides.swift, sample 1
    static func connectionOverrides1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var request = CourierRequest<Data>(path: "/events")
        request.connection.readTimeout = .unlimited   // a stream that may stay silent for long
        request.connection.proxy = .direct            // not through the client's proxy
    }

    /// Sources/Courier/Transport/StreamedResponse.swift, sample 1
    static func streamedResponse1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var request = context.request
        _ = request
        let (size, checksum) = try await client.stream(request) { response in
            var size = 0
            for try await piece in response.body { size += piece.count }
            return (size, response.body.trailers?["X-Checksum"])
        }
    }
}
