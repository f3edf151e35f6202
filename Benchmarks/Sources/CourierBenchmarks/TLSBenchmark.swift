import AsyncHTTPClient
import Courier
import CourierTesting
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Small GETs over TLS under TLS settings of the client's own, to an HTTP/1.1 server and to an
/// HTTP/2 server: the two roads Courier takes, against raw AsyncHTTPClient trusting the same
/// authority.
///
/// - Courier with a custom authority: AsyncHTTPClient with a TLS configuration of the host's own.
/// - Courier with the server's key pinned: Courier's own channels, verified inside the handshake.
///
/// Both Courier contenders use the default configuration but for the TLS policy (coalescing
/// on, so each request has a URL of its own).
struct TLSBenchmark {
    let options: Options

    enum Contender: String, CaseIterable {
        case ahcFutures = "AsyncHTTPClient (EventLoopFuture API, awaited), custom CA"
        case ahcAsync = "AsyncHTTPClient (async/await), custom CA"
        case courierRoots = "Courier, custom CA (AsyncHTTPClient, a TLS configuration of its own)"
        case courierPinned = "Courier, pinned key (Courier's own channels)"
    }

    /// The servers' child process: their ports, the authority and the leaf's key pin.
    struct Servers {
        let process: ServerProcess
        let http1Port: Int
        let http2Port: Int
        let authorityDER: Data
        let pin: String
    }

    static let serveFlag = "--serve-tls"

    /// Child side: an HTTPS test server (HTTP/1.1) and an HTTP/2 server under one authority;
    /// prints `H1PORT H2PORT AUTHORITY-DER-BASE64 PIN`, then serves until stdin closes.
    static func serve() async throws {
        let authority = try TestCertificates.authority()
        let leaf = try TestCertificates.leaf(issuer: authority)
        let tls = TestServerTLS(chain: [leaf])
        let http1 = try await TestServer.start(tls: tls)
        let http2 = try await HTTP2StatusServer.start(status: "200", tls: tls)
        let line = "\(http1.port) \(http2.url.port ?? 0) \(authority.certificateDER.base64EncodedString()) \(leaf.publicKeyPin)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
        while !FileHandle.standardInput.availableData.isEmpty {}
        try await http1.shutdown()
        try await http2.shutdown()
    }

    func run() async throws {
        let process = try ServerProcess.launch(arguments: [Self.serveFlag])
        defer { process.stop() }
        let fields = process.line.split(separator: " ").map(String.init)
        guard fields.count == 4, let http1 = Int(fields[0]), let http2 = Int(fields[1]), let der = Data(base64Encoded: fields[2]) else {
            throw HarnessError("the TLS server process printed no ports")
        }
        print("workload: \(options.requests) GETs over TLS, keep-alive, \(options.rounds) rounds, medians; CPU µs per request")
        for (name, port, path) in [("HTTP/1.1", http1, "/bytes/100"), ("HTTP/2", http2, "/")] {
            for concurrency in options.concurrencies {
                let url = "https://127.0.0.1:\(port)\(path)"
                let samples = try await measureAll(url: url, authorityDER: der, pin: fields[3], concurrency: concurrency)
                report(protocolName: name, concurrency: concurrency, samples: samples)
            }
        }
    }

    private func measureAll(url: String, authorityDER: Data, pin: String, concurrency: Int) async throws -> [Contender: [Sample]] {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(authorityDER), format: .der)])
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
        let raw = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        var roots = ClientConfiguration()
        roots.tls = TLSPolicy(trustRoots: .only([.bytes(authorityDER)]))
        let courierRoots = CourierClient(configuration: roots)
        var pinned = roots
        pinned.tls.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(pin)])]
        let courierPinned = CourierClient(configuration: pinned)
        var samples: [Contender: [Sample]] = [:]
        let perWorker = options.requests / concurrency
        let contenders = Contender.allCases.filter { options.selects($0.rawValue) }
        for round in 0...options.rounds {  // round 0 warms up every contender
            for contender in round % 2 == 1 ? contenders.reversed() : contenders {
                let sample = try await measure(requests: perWorker * concurrency) {
                    try await inWorkers(concurrency, perWorker: perWorker) { worker, index in
                        switch contender {
                        case .ahcFutures:
                            let response = try await raw.execute(request: try HTTPClient.Request(url: url)).get()
                            precondition(response.status == .ok)
                        case .ahcAsync:
                            let response = try await raw.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                            _ = try await response.body.collect(upTo: 1 << 20)
                            precondition(response.status == .ok)
                        case .courierRoots, .courierPinned:
                            let client = contender == .courierRoots ? courierRoots : courierPinned
                            let response = try await client.response(for: CourierRequest<CourierResponse>(path: "\(url)?r=\(worker)-\(index)"))
                            precondition(response.status == 200)
                        }
                    }
                }
                if round > 0 { samples[contender, default: []].append(sample) }
            }
        }
        try await courierRoots.shutdown()
        try await courierPinned.shutdown()
        try await raw.shutdown()
        return samples
    }

    private func report(protocolName: String, concurrency: Int, samples: [Contender: [Sample]]) {
        print("\n\(protocolName), concurrency \(concurrency)")
        let base = samples[.ahcFutures].map { median($0.map(\.cpuMicrosecondsPerRequest)) }
        for contender in Contender.allCases {
            guard let values = samples[contender] else { continue }
            let cpu = median(values.map(\.cpuMicrosecondsPerRequest))
            let rate = median(values.map(\.requestsPerSecond))
            let ratio = base.map { String(format: "  %.2f× the EventLoopFuture API's CPU", cpu / $0) } ?? ""
            let name = contender.rawValue.padding(toLength: 72, withPad: " ", startingAt: 0)
            print("  \(name) " + String(format: "%8.1f µs CPU  %8.0f req/s", cpu, rate) + ratio)
        }
    }
}

/// Runs `concurrency` worker tasks from the cooperative pool, each calling `request` (with its
/// worker number and the request's index) `perWorker` times, one after another.
private func inWorkers(_ concurrency: Int, perWorker: Int, _ request: @escaping @Sendable (Int, Int) async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                for index in 0..<perWorker { try await request(worker, index) }
            }
        }
        try await group.waitForAll()
    }
}
