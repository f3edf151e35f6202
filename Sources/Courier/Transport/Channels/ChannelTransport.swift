import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// The transport of plain http, of https hosts with pins, of every request through a proxy,
/// and of upgrades (see ``ConnectionUpgrade``):
/// HTTP/2 or HTTP/1.1, as ALPN chose (HTTP/1.1 for a plain http origin), over connections it
/// opens and verifies itself inside the handshake (see ``ChannelConnector``),
/// kept and reused per origin and settings (see ``ChannelPool``); an HTTP/2 connection
/// carries every exchange of its key at once, each on a stream of its own.
final class ChannelTransport: Sendable {
    let connector: ChannelConnector
    let pool: ChannelPool
    let watchdogs: ReadWatchdogs

    /// A transport whose pool keeps `configuration`'s idle connections, and whose exchanges are
    /// held to their read timeouts by `watchdogs`.
    init(configuration: TransportConfiguration, watchdogs: ReadWatchdogs, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.connector = ChannelConnector(group: group)
        self.watchdogs = watchdogs
        self.pool = ChannelPool(
            maximumPerKey: configuration.maximumConnectionsPerHost,
            idleTimeout: configuration.idleConnectionTimeout
        )
    }

    /// Sends `request` under `settings` (`nil` for a plain http origin) and `configuration`
    /// (the request's own, its overrides applied) and collects its response.
    func send(
        _ request: CourierHTTPRequest, settings: HostTLSSettings?, proxySettings: HostTLSSettings? = nil, configuration: TransportConfiguration,
        deadline: ContinuousClock.Instant?
    ) async throws -> CourierResponse {
        let limit = request.maximumBodySize
        return try await stream(request, settings: settings, proxySettings: proxySettings, configuration: configuration, deadline: deadline) { streamed in
            var response = streamed.head
            if let length = response.headers.contentLength, length > Int64(limit),
                response.headers["Content-Encoding"] == nil
            {
                throw tooLarge(limit, url: request.url)
            }
            var body = Data()
            for try await piece in streamed.body {
                guard body.count + piece.count <= limit else { throw tooLarge(limit, url: request.url) }
                body.append(piece)
            }
            response.body = body
            response.trailers = streamed.body.trailers ?? Headers()
            response.timing.end = .now
            return response
        }
    }

    /// Sends `request` under `settings` and `configuration` and hands its response to `body`
    /// once its head arrived; with an `admission`, once it holds its scheduler slot.
    ///
    /// A caller off the event loops that reads its response whole gives the slot back on the
    /// loop, with the connection, as soon as the response has ended there; while it waits for
    /// a slot, it hands the admission the start of its exchange, which the release that frees
    /// the slot runs on an idle connection of that loop (see ``HandedStart``). A request that
    /// waits for a slot then starts where the exchange before it ended, and its task wakes
    /// only for its response, as on AsyncHTTPClient's road. A caller on one of the loops waits
    /// for its slot and gives it back itself: its task runs where its exchange does.
    nonisolated(nonsending) func stream<Result: Sendable>(
        _ request: CourierHTTPRequest,
        settings: HostTLSSettings?,
        proxySettings: HostTLSSettings? = nil,
        configuration: TransportConfiguration,
        deadline: ContinuousClock.Instant?,
        admission: Admission? = nil,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        var request = request
        request.headers = request.headers.insideTunnel(of: configuration.proxy)
        guard let host = request.url.host, !host.isEmpty else {
            throw CourierError(.invalidURL, "The URL \(request.url.absoluteString) has no host; give an absolute http or https URL.", url: request.url)
        }
        let key = ChannelPool.Key(
            host: HostPattern.normalized(host), port: request.url.port ?? (settings == nil ? 80 : 443), settings: settings, proxy: configuration.proxy,
            proxySettings: proxySettings, upgrades: request.upgrade != nil
        )
        // A task on one of the loops keeps to connections of its loop: its response then
        // arrives on the thread it runs on.
        let loop = connector.callerLoop()
        let plan = ExchangePlan(
            request: request, key: key, configuration: configuration, deadline: deadline,
            givesBack: loop == nil && request.collectsResponseBody && request.upgrade == nil ? admission : nil
        )
        if let admission {
            if plan.givesBack != nil, admission.arrivedWaiting {
                if let (exchange, connection, head, arrival) = try await handOver(plan, to: admission) {
                    return try await finish(exchange, head: head, arrival: arrival, connection: connection, key: key, body: body)
                }
                // The slot came without an idle connection: it is this task's to use.
            } else {
                try await admission.wait()
            }
        }
        // The exchange's timing starts once it holds its slot, and takes in opening a connection.
        let start = ClockReading.now
        // A kept-alive connection the server closed just as it was reused fails here as a
        // connection failure before any of the response; the client's hop loop sends a
        // request that is safe to send again once more, as it does on every transport.
        let connection = try await lease(
            key, on: loop, connectTimeout: configuration.connectTimeout, url: request.url, timeout: request.timeout, deadline: deadline
        )
        let carrier: Connection
        do {
            carrier = try await connection.streams?.open() ?? connection
        } catch {
            pool.retire(connection, key: key)
            pool.release(connection, key: key, reusable: false)
            throw ChannelTransport.map(connection.cause(of: error), url: request.url, timeout: request.timeout)
        }
        let exchange = plan.exchange(on: carrier, of: connection, startedAt: start, transport: self)
        let head: HTTPResponseHead
        let arrival: ClockReading
        do {
            (head, arrival) = try await exchange.run(deadline: deadline)
        } catch {
            throw await failed(exchange, connection: connection, key: key, error: error)
        }
        if let upgrade = request.upgrade {
            return try await switchProtocols(exchange, head: head, arrival: arrival, upgrade: upgrade, connection: connection, key: key, body: body)
        }
        return try await finish(exchange, head: head, arrival: arrival, connection: connection, key: key, body: body)
    }

    /// Ends `exchange`, which failed with `error` before its response head, closes and gives
    /// back its connection, and returns the error to throw.
    nonisolated(nonsending) func failed(_ exchange: Exchange, connection: Connection, key: ChannelPool.Key, error: any Error) async -> CourierError {
        _ = await exchange.end()
        giveBack(connection, after: exchange, key: key, reusable: false)
        return ChannelTransport.map(error, url: exchange.request.url, timeout: exchange.request.timeout)
    }

    /// Hands the connection of `exchange` to `upgrade` when the server switched protocols,
    /// then `body` the response; any other response is read as usual, and its connection,
    /// opened for the upgrade alone, is closed.
    nonisolated(nonsending) private func switchProtocols<Result: Sendable>(
        _ exchange: Exchange, head: HTTPResponseHead, arrival: ClockReading, upgrade: ConnectionUpgrade, connection: Connection, key: ChannelPool.Key,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        guard head.status == .switchingProtocols else {
            return try await finish(exchange, head: head, arrival: arrival, connection: connection, key: key, body: body)
        }
        let url = exchange.request.url
        let timeout = exchange.request.timeout
        do {
            // A 101 has no body: its end comes with its head, after which the HTTP decoder
            // reads nothing more.
            while try await exchange.handoff.next() != nil {}
            _ = await exchange.end()
            let channel = exchange.channel
            try await channel.eventLoop.flatSubmit {
                ChannelConnector.leaveHTTP(channel, install: upgrade.install)
            }.get()
            upgrade.hand(channel)
        } catch {
            exchange.channel.close(promise: nil)
            pool.release(connection, key: key, reusable: false)
            throw ChannelTransport.map(exchange.cause(of: error), url: url, timeout: timeout, responseStarted: true)
        }
        let head = exchange.response(head, arrivedAt: arrival)
        return try await body(StreamedResponse(head: head, body: ResponseBodyStream(collected: Data(), trailers: Headers())))
    }

    /// Closes every connection.
    func shutdown() async {
        await pool.shutdown()
    }

    nonisolated(nonsending) private func lease(
        _ key: ChannelPool.Key, on loop: (any EventLoop)?, connectTimeout: Duration, url: URL, timeout: Duration?, deadline: ContinuousClock.Instant?
    ) async throws -> Connection {
        // A connection opened for an upgrade is never put back, so none is ever idle.
        let room: ChannelPool.Room
        switch try await pool.lease(key, on: loop, waitingAtMost: connectTimeout, url: url) {
        case .idle(let idle): return idle
        case .room(let granted): room = granted
        }
        do {
            let connection: Connection
            do {
                connection = try await connector.connect(
                    host: key.host, port: key.port, settings: key.settings, proxy: key.proxy, proxySettings: key.proxySettings,
                    connectTimeout: connectTimeout, deadline: deadline, http1Only: key.upgrades, on: loop
                )
            } catch {
                pool.failedToOpen(room)
                throw error
            }
            try pool.opened(connection, key: key, room: room)
            return connection
        } catch {
            var mapped = ChannelTransport.map(error, url: url, timeout: timeout)
            mapped.requestMayHaveBeenSent = false
            throw CourierAsyncHTTPClientTransport.blaming(mapped, on: key.proxy, url: url, underlyingError: error)
        }
    }

    nonisolated(nonsending) private func finish<Result: Sendable>(
        _ exchange: Exchange, head: HTTPResponseHead, arrival: ClockReading, connection: Connection, key: ChannelPool.Key,
        body: nonisolated(nonsending) (consuming StreamedResponse) async throws -> Result
    ) async throws -> Result {
        let url = exchange.request.url
        let timeout = exchange.request.timeout
        let handoff = exchange.handoff
        let pieces = ResponseBodyStream(
            next: {
                do {
                    return try await handoff.next().map(BodyHandoff.joined)
                } catch {
                    throw ChannelTransport.map(exchange.cause(of: error), url: url, timeout: timeout, responseStarted: true)
                }
            },
            trailers: { handoff.trailers }
        )
        let outcome: Swift.Result<Result, any Error>
        do {
            let streamed = StreamedResponse(head: exchange.response(head, arrivedAt: arrival), body: pieces)
            outcome = .success(try await exchange.whileCancellable { try await body(streamed) })
        } catch {
            outcome = .failure(error)
        }
        if exchange.bodyOutlivesResponse {
            // The server said all it would before the body ended (full duplex): the body goes
            // on without the reader, and the connection is released once it has ended.
            Task { await release(connection, key: key, after: exchange) }
        } else {
            await release(connection, key: key, after: exchange)
        }
        return try outcome.get()
    }

    /// Ends `exchange` and gives `connection` back to the pool.
    nonisolated(nonsending) private func release(_ connection: Connection, key: ChannelPool.Key, after exchange: Exchange) async {
        // Ended already, on the loop, with the connection given back there.
        guard let ended = await exchange.end() else { return }
        giveBack(connection, after: exchange, key: key, reusable: ended && !key.upgrades)
    }

    /// Gives `connection` back to the pool once `exchange` on it has ended, to carry another
    /// exchange when `reusable`. A stream is never used twice: an HTTP/2 exchange's is closed
    /// (closing one that already ended does nothing), and its connection has a stream fewer.
    func giveBack(_ connection: Connection, after exchange: Exchange, key: ChannelPool.Key, reusable: Bool) {
        if connection.streams != nil { exchange.channel.close(promise: nil) }
        pool.release(connection, key: key, reusable: reusable)
    }

    private func tooLarge(_ limit: Int, url: URL) -> CourierError {
        CourierError(
            .responseTooLarge,
            "The response body is larger than the \(limit)-byte limit; raise CourierRequest.maximumBodySize or ClientConfiguration.limits.maximumBodySize, or download it to a file.",
            url: url
        )
    }

    /// Translates the errors of this transport's connections into ``CourierError``.
    static func map(_ error: any Error, url: URL, timeout: Duration?, responseStarted: Bool = false) -> CourierError {
        switch error {
        case is ExchangeTimeout:
            var timedOut = CourierError(.timeout, "The server stopped sending data for longer than the read timeout; raise it for slow endpoints.", url: url, underlyingError: error)
            timedOut.responseStarted = responseStarted
            return timedOut
        case is ExchangeClosed:
            var closed = CourierError(
                .connectionFailed, "The server closed the connection before the response was complete; retry, or check the server's logs.", url: url, underlyingError: error
            )
            closed.connectionFailure = responseStarted ? .cutShort : .emptyReply
            closed.responseStarted = responseStarted
            return closed
        default:
            return CourierAsyncHTTPClientTransport.map(error, url: url, timeout: timeout, responseStarted: responseStarted)
        }
    }
}

extension ChannelTransport {
    /// Why the chain `host` presents fails verification under `settings`, or `nil` when it
    /// passes or the connection fails for another reason. Nothing is sent.
    func diagnose(host: String, port: Int, settings: HostTLSSettings, configuration: TransportConfiguration) async -> TLSFailure? {
        do {
            let connection = try await connector.connect(
                host: host, port: port, settings: settings, proxy: configuration.proxy, connectTimeout: configuration.connectTimeout
            )
            try? await connection.channel.close()
            return nil
        } catch let error as CourierError {
            return error.tlsFailure
        } catch {
            return nil
        }
    }
}
