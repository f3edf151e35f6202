import AsyncHTTPClient
import Courier
import CourierURLSession
import Foundation
import NIOCore
import NIOPosix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// N small GETs (100-byte body) over keep-alive, at each concurrency, through AsyncHTTPClient's
/// EventLoopFuture API, its async/await API, URLSession, and Courier.
struct SmallGetBenchmark {
    let url: URL
    let options: Options

    enum Contender: String, CaseIterable {
        case ahcFutures = "AsyncHTTPClient (EventLoopFuture)"
        case ahcFuturesDefault = "AsyncHTTPClient (EventLoopFuture, default configuration)"
        case ahcAsync = "AsyncHTTPClient (async/await)"
        case ahcAsyncDefault = "AsyncHTTPClient (async/await, default configuration)"
        case courierDefault = "Courier (default configuration)"
        case courierOnLoop = "Courier (default configuration, on makeTaskExecutor())"
        case courierMetrics = "Courier (default configuration) + MetricsObserver (no backend)"
        case courierDefaultNoCoalescing = "Courier (default configuration, coalescing off)"
        case courierDefaultWide = "Courier (default configuration, connections per host = concurrency)"
        case courierOnLoopWide = "Courier (default configuration, connections per host = concurrency, on makeTaskExecutor())"
        case courier = "Courier (tuned: one URL, coalescing and decompression off, connections = concurrency)"
        case courierBatch = "Courier (tuned, one Batch of all requests)"
        case transportOnly = "Courier transport alone"
        case transportOnLoop = "Courier transport alone (on makeTaskExecutor())"
        case urlSession = "URLSession"
        case urlSessionDelegate = "URLSession through a data delegate (extra)"
        case courierURLSession = "Courier on CourierURLSessionTransport (default configuration)"
        #if COURIER_BENCH_ALAMOFIRE
        case alamofire = "Alamofire (the URLSession contender's settings)"
        #endif
    }

    /// The clients that are not Courier nor AsyncHTTPClient, made once per concurrency.
    private struct Peers {
        let session: URLSession
        let delegateSession: DelegateSession
        #if COURIER_BENCH_ALAMOFIRE
        let alamofire: AlamofireSession
        #endif

        init(concurrency: Int) {
            session = SmallGetBenchmark.urlSession(concurrency: concurrency)
            // The same settings, the responses taken through a data delegate (extra, named so):
            // the way a wrapper that streams, limits or redirects itself must drive URLSession.
            delegateSession = DelegateSession(configuration: SmallGetBenchmark.urlSession(concurrency: concurrency).configuration)
            #if COURIER_BENCH_ALAMOFIRE
            alamofire = AlamofireSession(configuration: SmallGetBenchmark.urlSession(concurrency: concurrency).configuration)
            #endif
        }

        func finish() {
            session.finishTasksAndInvalidate()
            delegateSession.finish()
        }
    }

    func run() async throws {
        print("workload: \(options.requests) GETs of \(url.path) (100-byte body), keep-alive, \(options.rounds) rounds, medians")
        for concurrency in options.concurrencies {
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
            let raw = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
            // The raw client as its users get it (eight connections per host), the peer of
            // Courier's default configuration.
            let rawDefault = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            var courierConfiguration = ClientConfiguration()
            courierConfiguration.limits.maximumConnectionsPerHost = concurrency
            courierConfiguration.limits.maximumConcurrentRequestsPerHost = concurrency
            courierConfiguration.decompression = .disabled
            // Every request here is the same GET; coalescing would answer many of them with one
            // exchange, which the raw client cannot do. Each request goes to the server, as in raw.
            courierConfiguration.coalescesRequests = false
            let courier = CourierClient(configuration: courierConfiguration)
            // What a user gets: the configuration untouched (coalescing on, eight requests at
            // once per host, decompression asked for), called as the README shows. It is the
            // headline, against each raw API called the same way.
            let plain = CourierClient(configuration: ClientConfiguration())
            // The default configuration with a MetricsObserver added and no backend
            // bootstrapped: what an observer costs a program that never reads the metrics.
            var observedConfiguration = ClientConfiguration()
            observedConfiguration.observers.append(MetricsObserver())
            let observed = CourierClient(configuration: observedConfiguration)
            // The same with coalescing off (a setting changed, named so): what coalescing costs
            // a request that shares nothing.
            var noCoalescingConfiguration = ClientConfiguration()
            noCoalescingConfiguration.coalescesRequests = false
            let noCoalescing = CourierClient(configuration: noCoalescingConfiguration)
            // The default configuration with as many connections per host as the concurrency
            // (a setting changed, named so; the requests in flight per host follow it): the
            // peer of the raw client, which has as many connections, with nothing else changed.
            var wideConfiguration = ClientConfiguration()
            wideConfiguration.limits.maximumConnectionsPerHost = concurrency
            let wide = CourierClient(configuration: wideConfiguration)
            let peers = Peers(concurrency: concurrency)
            // What a user of the URLSession transport gets: the configuration untouched, the
            // transport made from it, as the CourierURLSession article shows.
            let overSession = CourierClient(
                configuration: ClientConfiguration(), transport: try CourierURLSessionTransport(configuration: ClientConfiguration()), ownsTransport: true
            )

            var samples: [Contender: [Sample]] = [:]
            let contenders = Contender.allCases.filter { options.selects($0.rawValue) }
            for round in 0...options.rounds {  // round 0 warms up every contender
                // Odd rounds run the contenders in reverse order, so that none always runs
                // right after the same other one, or always first while the machine settles.
                for contender in round % 2 == 1 ? contenders.reversed() : contenders {
                    let sample = try await measure(requests: options.requests) {
                        let client: CourierClient
                        switch contender {
                        case .courierMetrics: client = observed
                        case .courierDefault, .courierOnLoop: client = plain
                        case .courierDefaultNoCoalescing: client = noCoalescing
                        case .courierDefaultWide, .courierOnLoopWide: client = wide
                        case .courierURLSession: client = overSession
                        default: client = courier
                        }
                        try await drive(
                            contender, raw: contender == .ahcFuturesDefault || contender == .ahcAsyncDefault ? rawDefault : raw, courier: client, peers: peers,
                            concurrency: concurrency
                        )
                    }
                    if round > 0 { samples[contender, default: []].append(sample) }
                }
            }
            try await courier.shutdown()
            try await observed.shutdown()
            try await plain.shutdown()
            try await noCoalescing.shutdown()
            try await wide.shutdown()
            try await overSession.shutdown()
            peers.finish()
            try await raw.shutdown()
            try await rawDefault.shutdown()
            report(concurrency: concurrency, samples: samples)
        }
    }

    /// A session as an app makes one for many requests: no cache (each GET goes to the server,
    /// as with the other contenders) and as many connections per host as the concurrency.
    fileprivate static func urlSession(concurrency: Int) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = concurrency
        return URLSession(configuration: configuration)
    }

    private func drive(
        _ contender: Contender, raw: HTTPClient, courier: CourierClient, peers: Peers, concurrency: Int
    ) async throws {
        let perWorker = options.requests / concurrency
        let target = url.absoluteString
        switch contender {
        case .ahcFutures, .ahcFuturesDefault:
            let workers = (0..<concurrency).map { _ in Self.futureLoop(raw, url: target, remaining: perWorker) }
            try await EventLoopFuture.andAllSucceed(workers, on: raw.eventLoopGroup.any()).get()
        case .ahcAsync, .ahcAsyncDefault:
            try await Self.inWorkers(concurrency, perWorker: perWorker) { _, _ in
                let response = try await raw.execute(HTTPClientRequest(url: target), timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1 << 20)
                precondition(body.readableBytes == 100)
            }
        case .courier:
            let request = CourierRequest<Data>(path: target)
            try await Self.inWorkers(concurrency, perWorker: perWorker) { _, _ in
                let body = try await courier.send(request)
                precondition(body.count == 100)
            }
        case .courierDefault, .courierOnLoop, .courierMetrics, .courierDefaultNoCoalescing, .courierDefaultWide, .courierOnLoopWide, .courierURLSession:
            // Distinct URLs, so that coalescing (on by default) never shares an exchange and every
            // request reaches the server, as with the other contenders. On makeTaskExecutor()
            // each worker runs on an event loop, as the EventLoopFuture API's callbacks do.
            let onLoop = contender == .courierOnLoop || contender == .courierOnLoopWide
            try await Self.inWorkers(concurrency, perWorker: perWorker, executor: { onLoop ? courier.makeTaskExecutor() : nil }) { worker, index in
                let body = try await courier.send(CourierRequest<Data>(path: "\(target)?r=\(worker)-\(index)"))
                precondition(body.count == 100)
            }
        case .urlSession:
            try await Self.inWorkers(concurrency, perWorker: perWorker) { _, _ in
                let (body, response) = try await peers.session.data(from: url)
                precondition((response as? HTTPURLResponse)?.statusCode == 200 && body.count == 100)
            }
        case .urlSessionDelegate:
            try await Self.inWorkers(concurrency, perWorker: perWorker) { _, _ in
                let (body, response) = try await peers.delegateSession.data(from: url)
                precondition((response as? HTTPURLResponse)?.statusCode == 200 && body.count == 100)
            }
        #if COURIER_BENCH_ALAMOFIRE
        case .alamofire:
            try await Self.inWorkers(concurrency, perWorker: perWorker) { _, _ in
                let (body, status) = try await peers.alamofire.data(from: url)
                precondition(status == 200 && body.count == 100)
            }
        #endif
        case .transportOnly, .transportOnLoop:
            // Courier's AsyncHTTPClient transport without the client around it. On
            // makeTaskExecutor(), the difference between this and the EventLoopFuture API is what
            // the transport adds to AsyncHTTPClient. The client sends plain http over its own
            // connections instead (ChannelTransport, not public): the difference between this and
            // the client is the pipeline's and the other road's together.
            let onLoop = contender == .transportOnLoop
            var settings = TransportConfiguration()
            settings.maximumConnectionsPerHost = concurrency
            settings.decompression = .disabled
            let transport = CourierAsyncHTTPClientTransport(configuration: settings)
            let request = CourierHTTPRequest(method: .get, url: url)
            try await Self.inWorkers(concurrency, perWorker: perWorker, executor: { onLoop ? courier.makeTaskExecutor() : nil }) { _, _ in
                let response = try await transport.send(request, deadline: nil)
                precondition(response.body.count == 100)
            }
            try await transport.shutdown()
        case .courierBatch:
            var batch = Batch(mode: .failFast, maximumConcurrency: concurrency)
            let request = CourierRequest<Data>(path: target)
            let first = batch.add(request)
            for _ in 1..<(perWorker * concurrency) { batch.add(request) }
            let results = try await courier.run(batch)
            let body = try results.value(for: first)
            precondition(results.failedIndices.isEmpty && body.count == 100)
        }
    }

    /// Runs `concurrency` worker tasks, each calling `request` (with its worker number and the
    /// request's index) `perWorker` times, one after another: on the cooperative pool, or on
    /// the executor `executor` gives each worker.
    private static func inWorkers(
        _ concurrency: Int, perWorker: Int, executor: () -> (any TaskExecutor)? = { nil },
        _ request: @escaping @Sendable (Int, Int) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask(executorPreference: executor()) {
                    for index in 0..<perWorker { try await request(worker, index) }
                }
            }
            try await group.waitForAll()
        }
    }

    private static func futureLoop(_ client: HTTPClient, url: String, remaining: Int) -> EventLoopFuture<Void> {
        let request = try! HTTPClient.Request(url: url)
        return client.execute(request: request).flatMap { response in
            precondition(response.body?.readableBytes == 100)
            if remaining <= 1 { return client.eventLoopGroup.any().makeSucceededVoidFuture() }
            return futureLoop(client, url: url, remaining: remaining - 1)
        }
    }

    private func report(concurrency: Int, samples: [Contender: [Sample]]) {
        print("\nconcurrency \(concurrency)")
        let counted = Allocations.areCounted
        // Every name whole, the columns after the longest.
        let width = max(50, samples.keys.map(\.rawValue.count).max() ?? 0)
        print("  " + "contender".padding(toLength: width, withPad: " ", startingAt: 0) + "  req/s (median)   CPU µs/request (median)" + (counted ? "   allocations/request   bytes/request" : ""))
        var rps: [Contender: Double] = [:]
        var cpu: [Contender: Double] = [:]
        for contender in Contender.allCases where samples[contender] != nil {
            let list = samples[contender] ?? []
            rps[contender] = median(list.map(\.requestsPerSecond))
            cpu[contender] = median(list.map(\.cpuMicrosecondsPerRequest))
            let name = contender.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
            var line = "  \(name) \(String(format: "%14.0f", rps[contender]!))   \(String(format: "%10.1f", cpu[contender]!))"
            if counted {
                let allocations = median(list.compactMap(\.allocationsPerRequest))
                let bytes = median(list.compactMap(\.bytesAllocatedPerRequest))
                line += "   \(String(format: "%19.1f", allocations))   \(String(format: "%13.0f", bytes))"
            }
            print(line)
        }
        // Each ratio is taken within a round, between runs seconds apart, then the
        // median of the rounds' ratios is reported: drift in the machine's load cancels out.
        func ratio(_ contender: Contender, _ peer: Contender, _ value: (Sample) -> Double) -> String {
            guard let mine = samples[contender], let theirs = samples[peer] else { return "-" }
            let ratios = zip(mine, theirs).map { value($0) / value($1) }
            let list = ratios.map { String(format: "%.2f", $0) }.joined(separator: " ")
            return String(format: "%.2f", median(ratios)) + "×  (rounds: \(list))"
        }
        print("  median of the rounds' ratios:")
        // The headline: what a user gets (the default configuration, called as the README
        // shows) against each raw API called the same way (from the cooperative pool; on the
        // event loops).
        print("  Courier (default configuration) / async/await API, CPU:        \(ratio(.courierDefault, .ahcAsync) { $0.cpuMicrosecondsPerRequest })  target ≤ 1.00")
        print("  Courier (default configuration) / async/await API, throughput: \(ratio(.courierDefault, .ahcAsync) { $0.requestsPerSecond })")
        if samples[.courierOnLoop] != nil {
            print("  Courier (default, on makeTaskExecutor()) / EventLoopFuture API, CPU:        \(ratio(.courierOnLoop, .ahcFutures) { $0.cpuMicrosecondsPerRequest })  target ≤ 1.00")
            print("  Courier (default, on makeTaskExecutor()) / EventLoopFuture API, throughput: \(ratio(.courierOnLoop, .ahcFutures) { $0.requestsPerSecond })")
        }
        if samples[.courierMetrics] != nil {
            print("  Courier (default) + MetricsObserver (no backend) / Courier (default), CPU: \(ratio(.courierMetrics, .courierDefault) { $0.cpuMicrosecondsPerRequest })  target ≤ 1.03")
        }
        if samples[.courierDefault] != nil, samples[.ahcFutures] != nil {
            print("  Courier (default configuration) CPU / EventLoopFuture API CPU: \(ratio(.courierDefault, .ahcFutures) { $0.cpuMicrosecondsPerRequest })")
        }
        // Settings changed, named so: the tuned client against the faster raw API.
        if let futures = rps[.ahcFutures], let async = rps[.ahcAsync], samples[.courier] != nil {
            let fasterRaw: Contender = futures >= async ? .ahcFutures : .ahcAsync
            print("  Courier (tuned) / faster raw API, throughput: \(ratio(.courier, fasterRaw) { $0.requestsPerSecond })")
            print("  Courier (tuned) / async/await API, CPU:       \(ratio(.courier, .ahcAsync) { $0.cpuMicrosecondsPerRequest })")
        }
        if samples[.courierDefault] != nil, samples[.ahcFuturesDefault] != nil {
            print(
                "  Courier (default configuration) CPU / EventLoopFuture API (default configuration) CPU: \(ratio(.courierDefault, .ahcFuturesDefault) { $0.cpuMicrosecondsPerRequest })"
            )
        }
        if samples[.courierDefault] != nil, samples[.ahcAsyncDefault] != nil {
            print(
                "  Courier (default configuration) CPU / async/await API (default configuration) CPU: \(ratio(.courierDefault, .ahcAsyncDefault) { $0.cpuMicrosecondsPerRequest })"
            )
        }
        if samples[.courierDefaultWide] != nil, samples[.ahcAsync] != nil {
            print(
                "  Courier (default, connections per host = concurrency) CPU / async/await API CPU: \(ratio(.courierDefaultWide, .ahcAsync) { $0.cpuMicrosecondsPerRequest })"
            )
        }
        if samples[.courierOnLoopWide] != nil, samples[.ahcFutures] != nil {
            print(
                "  Courier (default, connections per host = concurrency, on makeTaskExecutor()) CPU / EventLoopFuture API CPU: \(ratio(.courierOnLoopWide, .ahcFutures) { $0.cpuMicrosecondsPerRequest })"
            )
        }
        if samples[.courierDefault] != nil, samples[.courierDefaultNoCoalescing] != nil {
            print("  Courier (default configuration) CPU / the same, coalescing off: \(ratio(.courierDefault, .courierDefaultNoCoalescing) { $0.cpuMicrosecondsPerRequest })")
        }
        if samples[.urlSession] != nil, samples[.ahcFutures] != nil {
            print("  URLSession CPU / AsyncHTTPClient (EventLoopFuture) CPU: \(ratio(.urlSession, .ahcFutures) { $0.cpuMicrosecondsPerRequest })")
        }
        #if COURIER_BENCH_ALAMOFIRE
        if samples[.alamofire] != nil, samples[.ahcFutures] != nil {
            print("  Alamofire CPU / AsyncHTTPClient (EventLoopFuture) CPU: \(ratio(.alamofire, .ahcFutures) { $0.cpuMicrosecondsPerRequest })")
        }
        #endif
        if samples[.courierURLSession] != nil, samples[.urlSession] != nil {
            print("  Courier on CourierURLSessionTransport CPU / URLSession CPU: \(ratio(.courierURLSession, .urlSession) { $0.cpuMicrosecondsPerRequest })  target ≤ 1.10")
        }
        if samples[.urlSessionDelegate] != nil, samples[.urlSession] != nil {
            print("  URLSession through a data delegate CPU / URLSession CPU: \(ratio(.urlSessionDelegate, .urlSession) { $0.cpuMicrosecondsPerRequest })")
        }
        if samples[.courierURLSession] != nil, samples[.urlSessionDelegate] != nil {
            print("  Courier on CourierURLSessionTransport CPU / URLSession through a data delegate CPU: \(ratio(.courierURLSession, .urlSessionDelegate) { $0.cpuMicrosecondsPerRequest })")
        }
        if samples[.transportOnly] != nil {
            print("  Courier (tuned) / its transport alone, throughput: \(ratio(.courier, .transportOnly) { $0.requestsPerSecond })")
        }
        // The task executor's gap, split: what the transport adds to the raw client, and what
        // the client's pipeline adds to its transport, both on the event loops.
        if samples[.transportOnLoop] != nil, samples[.ahcFutures] != nil {
            print("  Courier transport alone (on makeTaskExecutor()) / EventLoopFuture API, CPU: \(ratio(.transportOnLoop, .ahcFutures) { $0.cpuMicrosecondsPerRequest })")
        }
        if samples[.courierOnLoop] != nil, samples[.transportOnLoop] != nil {
            print("  Courier (default, on makeTaskExecutor()) / its transport alone there, CPU: \(ratio(.courierOnLoop, .transportOnLoop) { $0.cpuMicrosecondsPerRequest })")
        }
    }
}
