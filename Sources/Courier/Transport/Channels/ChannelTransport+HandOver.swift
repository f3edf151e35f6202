import NIOCore
import NIOHTTP1

/// The hand-over of ``ChannelTransport``: a collected response gives its connection and
/// scheduler slot back on the loop as it ends, and a request that waits for a slot hands its
/// admission the start of its exchange (see ``HandedStart``).
extension ChannelTransport {
    /// What an exchange of ``stream(_:settings:proxySettings:configuration:deadline:admission:body:)``
    /// is made of, whenever and wherever it starts.
    struct ExchangePlan: Sendable {
        let request: CourierHTTPRequest
        let key: ChannelPool.Key
        let configuration: TransportConfiguration
        let deadline: ContinuousClock.Instant?
        /// The admission whose slot goes back on the loop once the response has ended whole.
        let givesBack: Admission?

        /// The exchange on `carrier`, `connection` itself or one of its HTTP/2 streams, which
        /// started at `start` and whose response goes to `handoff` (a new one by default).
        func exchange(
            on carrier: Connection, of connection: Connection, startedAt start: ClockReading, transport: ChannelTransport, handoff: BodyHandoff? = nil
        ) -> Exchange {
            Exchange(
                connection: carrier, request: request, start: start, decompression: configuration.decompression,
                readTimeout: configuration.readTimeout, watchdogs: transport.watchdogs,
                // Asked only of a multipart body: the scheme is not read again for every request.
                sendsFileRegions: request.body?.multipartSegments != nil && connection.streams == nil
                    && FileRegionBody.applies(to: request.url, proxy: configuration.proxy),
                handoff: handoff,
                whenEnded: givesBack.map { transport.givingBack(connection, key: key, slot: $0) }
            )
        }
    }

    /// Hands `admission` the start of `plan`'s exchange and waits for its response head (for
    /// a response read whole, its end) without waking in between: see ``HandedStart``. Returns
    /// `nil` when the slot came without an idle connection (the caller leases one).
    nonisolated(nonsending) func handOver(
        _ plan: ExchangePlan, to admission: Admission
    ) async throws -> (Exchange, Connection, HTTPResponseHead, ClockReading)? {
        let handoff = Exchange.handoff(for: plan.request)
        let handed = HandedStart()
        let arrival: (HTTPResponseHead, ClockReading)
        do {
            arrival = try await withTaskCancellationHandler {
                admission.start { refusal in
                    if let refusal { return handoff.end(.failure(Admission.Refused(reason: refusal))) }
                    self.begin(plan, into: handoff, handed: handed)
                }
                return try await handoff.head()
            } onCancel: {
                admission.withdraw(with: CancellationError())
                handed.cancel()
            }
        } catch let refused as Admission.Refused {
            throw refused.reason
        } catch {
            if handed.isLeftToCaller { return nil }
            guard let exchange = handed.exchange else { throw error }
            throw await failed(exchange, connection: exchange.connection, key: plan.key, error: exchange.cause(of: error))
        }
        // The handoff has a head only from an exchange begun.
        guard let exchange = handed.exchange else { throw CancellationError() }
        exchange.received(arrival.0)
        return (exchange, exchange.connection, arrival.0, arrival.1)
    }

    /// Begins `plan`'s exchange on an idle HTTP/1.1 connection, one of the loop this runs on
    /// if there is one, with its response going to `handoff`; without one, leaves the
    /// exchange to its task.
    private func begin(_ plan: ExchangePlan, into handoff: BodyHandoff, handed: HandedStart) {
        let connection: Connection
        do {
            let here = connector.callerLoop()
            guard let idle = try pool.take(plan.key, on: here) ?? (here == nil ? nil : try pool.take(plan.key)) else {
                handed.leaveToCaller()
                return handoff.end(.failure(HandedStart.LeftToCaller()))
            }
            connection = idle
        } catch {
            return handoff.end(.failure(error))
        }
        // A new HTTP/2 stream is opened by the task, which waits for it.
        guard connection.streams == nil else {
            pool.release(connection, key: plan.key, reusable: true)
            handed.leaveToCaller()
            return handoff.end(.failure(HandedStart.LeftToCaller()))
        }
        let exchange = plan.exchange(on: connection, of: connection, startedAt: .now, transport: self, handoff: handoff)
        guard handed.begin(exchange) else {
            pool.release(connection, key: plan.key, reusable: true)
            return handoff.end(.failure(CancellationError()))
        }
        exchange.begin(deadline: plan.deadline)
    }

    /// What gives `connection` and `slot` back, on the loop, once a response read whole has
    /// ended there and its request went out whole; the request granted the slot then starts
    /// on that loop, once it is done with the read that ended the response.
    func givingBack(_ connection: Connection, key: ChannelPool.Key, slot: Admission) -> @Sendable (Exchange, Int, Bool) -> Void {
        { exchange, status, keepAlive in
            guard let reusable = exchange.endNow(keepAlive: keepAlive) else { return }
            self.giveBack(connection, after: exchange, key: key, reusable: reusable)
            let starts = slot.scheduler.release(slot, outcome: .response(status: status))
            guard !starts.isEmpty else { return }
            exchange.channel.eventLoop.execute { for start in starts { start(nil) } }
        }
    }
}
