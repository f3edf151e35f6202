import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SwiftASN1
import X509

/// Opens the connections of ``ChannelTransport``: TCP (through a proxy's tunnel when the
/// request has one), then TLS verified by a ``TrustEvaluator`` inside the handshake, then HTTP/2 or
/// HTTP/1.1, as ALPN chose (HTTP/2 offered first, as AsyncHTTPClient and curl offer it).
///
/// NIOSSL's custom verification callback replaces BoringSSL's verification with Courier's:
/// the chain is built and checked against the host's roots and pins, and the handshake fails
/// unless both pass, so no request byte is ever written to an unverified or unpinned peer.
final class ChannelConnector: Sendable {
    /// The largest read from a connection's socket: 256 KiB, four times NIO's default, reached
    /// only by a socket that keeps filling its reads.
    static let largestRead = 256 * 1024

    private struct Prepared: Sendable {
        let context: NIOSSLContext
        let evaluator: TrustEvaluator
    }

    /// Settings and the protocols offered by ALPN: an origin's (HTTP/2 and HTTP/1.1) or a
    /// proxy's (HTTP/1.1).
    private struct PreparedKey: Hashable {
        let settings: HostTLSSettings
        let protocols: [String]
    }

    private let prepared = NIOLockedValueBox<[PreparedKey: Prepared]>([:])
    private let group: any EventLoopGroup
    /// The group's loops, to tell a caller that runs on one of them.
    private let loops: GroupLoops

    init(group: any EventLoopGroup) {
        self.group = group
        self.loops = GroupLoops(group)
    }

    /// The loop the current thread runs, when it is one of the group's: a task on
    /// ``CourierClient/makeTaskExecutor()`` keeps to connections of that loop.
    func callerLoop() -> (any EventLoop)? {
        loops.current
    }

    /// A connection to `host`:`port`, through `proxy`'s tunnel if one is given, its handshake
    /// done and its chain verified.
    ///
    /// TCP and TLS together get `connectTimeout`, and no more than what is left of
    /// `deadline`: a server that accepts the connection and never finishes the handshake fails
    /// the attempt with a ``CourierError/Kind/timeout`` then. Cancelling the task closes the
    /// connection being made.
    ///
    /// ALPN offers an https origin HTTP/2 and HTTP/1.1, or HTTP/1.1 alone when
    /// `http1Only` (a connection that will leave HTTP, see ``ConnectionUpgrade``). The
    /// connection runs on `loop` when one is given, else on the group's next.
    func connect(
        host: String, port: Int, settings: HostTLSSettings?, proxy: Proxy?, proxySettings: HostTLSSettings? = nil, connectTimeout: Duration,
        deadline: ContinuousClock.Instant? = nil, http1Only: Bool = false, on loop: (any EventLoop)? = nil
    ) async throws -> Connection {
        let prepared = try settings.map { settings throws(CourierError) in
            try http1Only ? prepare(settings, protocols: ["http/1.1"]) : prepare(settings)
        }
        // A proxy spoken to over TLS is checked as an origin would be; it speaks HTTP/1.1.
        let proxyPrepared = try proxySettings.map { settings throws(CourierError) in try prepare(settings, protocols: ["http/1.1"]) }
        let proxyRejection = NIOLockedValueBox<TLSFailure?>(nil)
        let limit = ConnectLimit(connectTimeout: connectTimeout, deadline: deadline)
        let socks: SOCKS5Handshake? =
            if let proxy, proxy.kind.isSOCKS { try await ChannelConnector.handshake(to: host, port: port, through: proxy) } else { nil }
        let rejection = NIOLockedValueBox<TLSFailure?>(nil)
        let name = HostPattern.normalized(host)
        let serverName = TrustEvaluator.isAddress(name) ? nil : name
        // Each connection attempt (one per address of the host) has its own handshake.
        let attempts = NIOLockedValueBox<[ObjectIdentifier: (channel: any Channel, handshake: EventLoopFuture<NegotiatedProtocol>, fault: Connection.Fault)]>([:])
        let bootstrap = ClientBootstrap(group: loop ?? group)
            .connectTimeout(limit.remaining)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            // Reads grow past NIO's 64 KiB when the socket keeps them full (a large body
            // arriving fast), so that such a body reaches its reader in fewer, larger pieces.
            .channelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: ChannelConnector.largestRead))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handshake = channel.eventLoop.makePromise(of: NegotiatedProtocol.self)
                    let fault = Connection.Fault(nil)
                    attempts.withLockedValue { $0[ObjectIdentifier(channel)] = (channel, handshake.futureResult, fault) }
                    // TLS to the origin, verified inside the handshake, then its protocol; or,
                    // for a plain http origin, HTTP/1.1 at once.
                    let secure: (any Channel) throws -> Void = { channel in
                        guard let prepared else {
                            try ChannelConnector.configureHTTP1(channel, fault: fault)
                            return handshake.succeed(.http1)
                        }
                        let tls = try NIOSSLClientHandler(
                            context: prepared.context, serverHostname: serverName,
                            customVerificationCallbackWithMetadata: ChannelConnector.verification(
                                prepared.evaluator, host: name, rejection: rejection
                            )
                        )
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(tls)
                        try sync.addHandler(
                            HandshakeHandler(promise: handshake, deadline: limit.end, fault: fault) { channel, negotiated in
                                if negotiated == "h2" { return .http2(try HTTP2Streams.configure(channel)) }
                                try ChannelConnector.configureHTTP1(channel, fault: fault)
                                return .http1
                            })
                    }
                    guard let proxy else { return try secure(channel) }
                    let failure: (any Error) -> Void = { error in
                        fault.withLockedValue { $0 = $0 ?? error }
                        handshake.fail(error)
                    }
                    if let socks {
                        return try channel.pipeline.syncOperations.addHandler(TunnelHandler(socks, deadline: limit.end, next: secure, failure: failure))
                    }
                    if let proxyPrepared {
                        let proxyName = HostPattern.normalized(proxy.host)
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(
                                context: proxyPrepared.context, serverHostname: TrustEvaluator.isAddress(proxyName) ? nil : proxyName,
                                customVerificationCallbackWithMetadata: ChannelConnector.verification(
                                    proxyPrepared.evaluator, host: proxyName, rejection: proxyRejection
                                )
                            ))
                    }
                    let connect = HTTPConnectNegotiation(host: name, port: port, proxy: proxy)
                    try channel.pipeline.syncOperations.addHandler(TunnelHandler(connect, deadline: limit.end, next: secure, failure: failure))
                }
            }
        do {
            let channel = try await withTaskCancellationHandler {
                try await bootstrap.connect(toHost: proxy?.host ?? host, port: proxy?.port ?? port).get()
            } onCancel: {
                attempts.withLockedValue { started in
                    for attempt in started.values { attempt.channel.close(promise: nil) }
                }
            }
            guard
                let (handshake, fault) = attempts.withLockedValue({ $0[ObjectIdentifier(channel)] })
                    .map({ ($0.handshake, $0.fault) })
            else {
                channel.close(promise: nil)
                throw ExchangeClosed()
            }
            let negotiated: NegotiatedProtocol
            do {
                negotiated = try await withTaskCancellationHandler {
                    try await handshake.get()
                } onCancel: {
                    channel.close(promise: nil)
                }
            } catch {
                channel.close(promise: nil)
                throw error
            }
            try Task.checkCancellation()
            switch negotiated {
            case .http1: return Connection(channel: channel, fault: fault, streams: nil)
            case .http2(let streams): return Connection(channel: channel, fault: fault, streams: streams)
            }
        } catch let timeout as HandshakeTimeout {
            throw limit.error(timeout, host: host)
        } catch let refusal as HTTPConnectNegotiation.Refusal {
            throw refusal.error(host: host, port: port, proxy: proxy)
        } catch let refusal as SOCKS5Handshake.Refusal {
            throw refusal.error(host: host, port: port, proxy: proxy)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            if let proxy, let reason = proxyRejection.withLockedValue({ $0 }) {
                var failure = reason.error("The proxy \(proxy.host):\(proxy.port) spoken to over TLS: " + reason.message(host: proxy.host))
                failure.underlyingError = error
                failure.requestMayHaveBeenSent = false
                failure.proxy = proxy
                throw failure
            }
            guard let reason = rejection.withLockedValue({ $0 }) else {
                // Whatever NIO reports for an attempt cut off at the limit, it ran out of time.
                if limit.hasPassed { throw limit.error(error, host: host) }
                throw error
            }
            var failure = reason.error(reason.message(host: host))
            failure.underlyingError = error
            failure.requestMayHaveBeenSent = false
            throw failure
        }
    }

    /// The SOCKS5 handshake that asks `proxy` for `host`:`port`: by name for `socks5h`, by an
    /// address resolved here for `socks5` (the first IPv4 address, else the first IPv6 one,
    /// as the system's resolver lists them).
    private static func handshake(to host: String, port: Int, through proxy: Proxy) async throws -> SOCKS5Handshake {
        let name = HostPattern.normalized(host)
        let target: SOCKS5Handshake.Target
        if let address = ProxyBypass.address(name) {
            target = .address(address)
        } else if proxy.kind == .socks5h {
            target = .name(name)
        } else {
            target = .address(try await HostAddresses.resolve(name, port: port))
        }
        do {
            return try SOCKS5Handshake(target: target, port: port, credentials: proxy.credentials)
        } catch {
            throw error.error(host: host, port: port, proxy: proxy)
        }
    }

    /// Sets `channel` up for HTTP/1.1 after its handshake: codec, status guard, and the
    /// ``ExchangeHandler`` that hands each response to its exchange (the read timeout is each
    /// exchange's, see ``ReadWatchdog``). Call on its loop.
    private static func configureHTTP1(_ channel: any Channel, fault: Connection.Fault) throws {
        let sync = channel.pipeline.syncOperations
        // The bytes after a 101's head go on to the next protocol's handlers when the decoder
        // is removed (ConnectionUpgrade).
        try sync.addHTTPClientHandlers(leftOverBytesStrategy: .forwardBytes)
        try StatusCodeGuard.install(on: channel)
        // Bodies are decoded by ExchangeHandler (ContentDecoder).
        try sync.addHandler(ExchangeHandler(fault: fault))
    }

    /// Takes the HTTP/1.1 handlers ``configureHTTP1(_:fault:)`` added out of `channel`, then
    /// has `install` add the next protocol's handlers. Call on its loop.
    ///
    /// The response decoder goes last, in a turn of the loop of its own, passing on the bytes
    /// it holds after a `101` head; a ``SwitchHold`` keeps them, and whatever else arrives
    /// meanwhile, until the new handlers are in place (while the decoder leaves, it would
    /// take their writes for HTTP).
    static func leaveHTTP(_ channel: any Channel, install: @escaping @Sendable (any Channel) throws -> Void) -> EventLoopFuture<Void> {
        let sync = channel.pipeline.syncOperations
        do {
            try sync.addHandler(SwitchHold())
            _ = sync.removeHandler(try sync.handler(type: ExchangeHandler.self))
            _ = sync.removeHandler(try sync.handler(type: StatusCodeGuard.self))
            _ = sync.removeHandler(try sync.handler(type: NIOHTTPRequestHeadersValidator.self))
            _ = sync.removeHandler(try sync.handler(type: HTTPRequestEncoder.self))
            return sync.removeHandler(try sync.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self)).flatMapThrowing {
                try install(channel)
                let pipeline = channel.pipeline.syncOperations
                _ = pipeline.removeHandler(try pipeline.handler(type: SwitchHold.self))
            }
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
    }

    /// The callback NIOSSL runs once per handshake with the certificates the server sent.
    private static func verification(
        _ evaluator: TrustEvaluator, host: String, rejection: NIOLockedValueBox<TLSFailure?>
    ) -> NIOSSLCustomVerificationCallbackWithMetadata {
        { certificates, promise in
            let encoded = certificates.map { try? $0.toDERBytes() }
            promise.completeWithTask {
                let presented = try encoded.map { try Certificate(derEncoded: $0 ?? []) }
                switch await evaluator.evaluate(presented, host: host) {
                case .trusted(let chain):
                    let verified = try chain.map { try NIOSSLCertificate(bytes: Array(Pin.der($0)), format: .der) }
                    return .certificateVerified(VerificationMetadata(ValidatedCertificateChain(verified)))
                case .refused(let reason):
                    rejection.withLockedValue { $0 = reason }
                    return .failed
                }
            }
        }
    }

    /// The NIOSSL context and evaluator of `settings`, made once per distinct settings.
    private func prepare(_ settings: HostTLSSettings, protocols: [String] = ["h2", "http/1.1"]) throws(CourierError) -> Prepared {
        let key = PreparedKey(settings: settings, protocols: protocols)
        let (made, count) = prepared.withLockedValue { ($0[key], $0.count) }
        if let made { return made }
        if count >= HostTLSSettings.maximumDistinct { throw HostTLSSettings.tooMany() }
        var tls = settings.minimumVersion.clientConfiguration()
        tls.certificateVerification = .fullVerification
        tls.applicationProtocols = protocols
        if let identity = settings.identity {
            let (chain, key) = try ChannelConnector.load(identity)
            tls.certificateChain = chain.map { .certificate($0) }
            tls.privateKey = .privateKey(key)
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: tls)
        } catch {
            throw TLSFailure.unusableMaterial.error("The TLS settings could not be applied (\(error)); check the client certificate and its key.")
        }
        let ready = Prepared(context: context, evaluator: try TrustEvaluator(settings: settings))
        prepared.withLockedValue { $0[key] = ready }
        return ready
    }

    /// The certificate chain and private key of `identity`.
    static func load(_ identity: ClientIdentity) throws(CourierError) -> ([NIOSSLCertificate], NIOSSLPrivateKey) {
        switch identity.storage {
        case .pem(let certificate, let privateKey):
            let certificates = try certificate.certificates()
            let keyData = try privateKey.data()
            do {
                let chain = try certificates.map { try NIOSSLCertificate(bytes: Array(Pin.der($0)), format: .der) }
                let key = try NIOSSLPrivateKey(bytes: Array(keyData), format: TLSMaterial.isPEM(keyData) ? .pem : .der)
                return (chain, key)
            } catch {
                throw TLSFailure.unusableMaterial.error("The private key \(privateKey) could not be read (\(error)); give an unencrypted PEM or DER key.")
            }
        case .pkcs12(let bundle, let password):
            let data = try bundle.data()
            do {
                let parsed = try NIOSSLPKCS12Bundle(buffer: Array(data), passphrase: Array(password.utf8))
                return (parsed.certificateChain, parsed.privateKey)
            } catch {
                throw TLSFailure.unusableMaterial.error("The PKCS#12 bundle \(bundle) could not be opened (\(error)); check the file and its password.")
            }
        }
    }
}

/// A connection of ``ChannelTransport`` (or one stream of an HTTP/2 connection), and the error
/// that ended it once one did.
struct Connection: Sendable {
    typealias Fault = NIOLockedValueBox<(any Error)?>

    let channel: any Channel
    let fault: Fault
    /// The streams of an HTTP/2 connection; `nil` for HTTP/1.1, and for a stream itself.
    let streams: HTTP2Streams?

    /// What ended the connection, when `error` only says that it is closed.
    func cause(of error: any Error) -> any Error {
        guard error is ChannelError || error is ExchangeClosed else { return error }
        return fault.withLockedValue { $0 } ?? error
    }
}
