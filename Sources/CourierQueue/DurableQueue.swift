import Courier
import Foundation

/// A durable offline queue: requests written to disk before their first attempt, sent when
/// their host answers, after a restart too, and never applied twice by a server that honours
/// their `Idempotency-Key`.
///
/// ```swift
/// let queue = try await client.openQueue(QueueConfiguration(path: outboxPath))
/// let handle = try await queue.enqueue(CourierRequest<Void>(method: .post, path: "/notes", body: .text("hi")))
/// let record = try await handle.outcome()   // delivered, failed or expired
/// await queue.close()
/// ```
///
/// Opening a queue resumes the records a previous process left: pending ones are sent when
/// due, and those that were in flight when it died are sent again with their original key.
/// Several queues, in one process or in many, may deliver one storage: each is a worker that
/// claims records with a lease (``QueueLease``), so that a record is sent by one worker at a
/// time and, when that worker dies, by another. Ordered records still leave one at a time per
/// origin, first in first out. See <doc:OfflineQueue>.
public actor DurableQueue {
    /// The queue's configuration.
    public nonisolated let configuration: QueueConfiguration
    /// What opening found open to other users: a queue folder that Courier left as it was, or
    /// database files it made private (0600). One sentence each, also logged as warnings
    /// through the client's logger; empty when the files were private.
    public nonisolated let permissionWarnings: [String]
    package let client: CourierClient
    let store: any QueueBackend
    /// This worker's name in the leases it takes (see ``QueueLease/holder``).
    nonisolated let worker: String
    /// The credential headers taken out of the records this queue enqueued, by record id:
    /// kept in memory only, until the record is finished or dropped, or the queue closed.
    var heldCredentials: [String: Headers] = [:]
    /// Records whose last turn found credentials missing; ``run(deadline:)`` stops waiting
    /// for records that only wait for credentials.
    var waitingForCredentials: Set<String> = []

    var delivering = false
    var closed = false
    /// Set by ``pause()``: no round runs and no timer is set until ``resume()``.
    var paused = false
    var deliveries: [String: Task<Void, Never>] = [:]
    var probes: [String: Task<Void, Never>] = [:]
    /// Origins that refused connections: when to probe next, and how many probes failed.
    var unreachable: [String: (probeAt: Date, failures: Int)] = [:]
    /// Counts the times the network was said to be back (``networkIsBack()``): a probe that
    /// started before the last of them and found its origin down reports an older state of
    /// the network, and does not mark the origin unreachable again.
    var networkGeneration = 0
    var timer: Task<Void, Never>?
    /// When ``timer`` plans again.
    var timerAt: Date?
    var rounds = Rounds()
    var subscribers: [UUID: AsyncStream<QueueEvent>.Continuation] = [:]
    var pathWatcher: NetworkPathWatcher?
    /// Renews this worker's leases while it delivers.
    var leaseRenewal: Task<Void, Never>?
    /// Plans again when another worker changed the records.
    var changeWatch: Task<Void, Never>?

    init(client: CourierClient, store: any QueueBackend, configuration: QueueConfiguration) {
        self.client = client
        self.store = store
        self.worker = QueueWorker.makeIdentity()
        self.configuration = configuration
        self.permissionWarnings = store.warnings
    }

    /// Opens the queue in ``QueueConfiguration/storage`` for `client`, which sends its requests;
    /// with ``QueueConfiguration/deliversOnOpen`` it resumes delivery at once.
    ///
    /// - Throws: ``CourierError/Kind/queueStorage`` when the storage cannot be opened or is not
    ///   a queue database; ``CourierError/Kind/invalidConfiguration`` for a concurrency below 1
    ///   or a lease shorter than a second.
    public static func open(client: CourierClient, configuration: QueueConfiguration = QueueConfiguration()) async throws(CourierError) -> DurableQueue {
        try configuration.validate()
        let store = try await configuration.storage.open(client.configuration.logger)
        let queue = DurableQueue(client: client, store: store, configuration: configuration)
        if configuration.deliversOnOpen {
            do {
                try await queue.startDelivery()
            } catch {
                await queue.close()
                throw error
            }
        }
        return queue
    }

    /// Writes `request` to the database and returns its handle; the first attempt starts at
    /// once when the request's turn has come (see ``DurableRequestHandle/firstAttempt()``).
    ///
    /// No credential is written: `Authorization`, `Proxy-Authorization`, `Cookie` and the
    /// client's ``ClientConfiguration/sensitiveHeaders`` are taken out of the request first
    /// and only their names are kept (``QueuedRequest/credentialHeaderNames``). This queue
    /// holds their values in memory and sends them while it stays open; a queue opened later
    /// gets them from ``QueueConfiguration/credentials`` or from its client. When the client
    /// has credentials for the request's origin, the record says so
    /// (``QueuedRequest/hadClientCredentials``) and is delivered only with credentials for it.
    ///
    /// - Throws: ``CourierError/Kind/queueFull`` when ``QueueConfiguration/maximumRecords``
    ///   records wait already; ``CourierError/Kind/queueStorage`` when the write fails.
    public func enqueue(_ request: QueuedRequest) async throws(CourierError) -> DurableRequestHandle {
        try await enqueue(request, sensitiveHeaders: [])
    }

    /// Enqueues `request`, taking out its credential headers and those named in
    /// `sensitiveHeaders` (lower-cased) too; `write` writes the record, by default to the
    /// queue's storage.
    package func enqueue(
        _ request: QueuedRequest, sensitiveHeaders: Set<String>, write: RecordWriter? = nil
    ) async throws(CourierError) -> DurableRequestHandle {
        try checkOpen()
        var request = request
        let sensitive = sensitiveHeaders.union(client.configuration.sensitiveHeaders.map { $0.lowercased() })
        let removed = request.removeCredentials(sensitive: sensitive)
        if client.authenticator?.hasCredentials(for: request.url) == true { request.hadClientCredentials = true }
        let id = UUID().uuidString.lowercased()
        // Held before the record exists, so that no delivery can find it without them.
        if !removed.isEmpty { heldCredentials[id] = removed }
        let now = configuration.now()
        let age = request.maximumAge ?? configuration.maximumAge
        let record: QueueRecord
        do {
            let expiry = age.map { now.addingTimeInterval($0.timeInterval) }
            if let write {
                record = try await write(request, id, now, expiry, configuration.maximumRecords)
            } else {
                record = try await store.insert(request, id: id, now: now, expiresAt: expiry, maximumRecords: configuration.maximumRecords)
            }
        } catch {
            heldCredentials[id] = nil
            throw error
        }
        publish(.queued(record))
        if delivering {
            wake(noLaterThan: record.expiresAt)
            await claimRound()
        }
        return DurableRequestHandle(record: record, queue: self)
    }

    /// Resolves `request` against the client's configuration (base URL, default headers,
    /// parameters) and enqueues it; its credential headers, default ones and
    /// ``CourierRequest/sensitiveHeaders`` included, are taken out as ``enqueue(_:)`` says.
    ///
    /// - Parameters:
    ///   - request: the request; its response type is not used, since the outcome is kept as
    ///     a response.
    ///   - tag: a label kept with the record.
    ///   - isOrdered: whether it waits for earlier ordered requests to the same host.
    ///   - maximumAge: how long it may wait; `nil` uses ``QueueConfiguration/maximumAge``.
    /// - Throws: as ``enqueue(_:)``; ``CourierError/Kind/invalidBody`` for a streamed body or a
    ///   ``CourierRequest/credential``, and ``CourierError/Kind/invalidConfiguration`` for a
    ///   request with ``CourierRequest/connection`` settings, which the queue does not keep:
    ///   the delivering client's configuration decides how it connects.
    public func enqueue<Value>(
        _ request: CourierRequest<Value>, tag: String? = nil, isOrdered: Bool = true, maximumAge: Duration? = nil
    ) async throws(CourierError) -> DurableRequestHandle {
        let (queued, sensitive) = try client.queuedRequest(request, tag: tag, isOrdered: isOrdered, maximumAge: maximumAge)
        return try await enqueue(queued, sensitiveHeaders: sensitive)
    }

    /// Every record, oldest first, with its state.
    public func records() async throws(CourierError) -> [QueueRecord] {
        try await store.allRecords()
    }

    /// The record with `id`, or `nil`.
    public func record(id: String) async throws(CourierError) -> QueueRecord? {
        try await store.record(id: id)
    }

    /// Makes a failed, expired, delivered or waiting record pending again and due now, with a
    /// new maximum age; it keeps its key, so a server that applied it already does not apply
    /// it again.
    ///
    /// - Throws: ``CourierError/Kind/queueRecordNotFound`` for an unknown id;
    ///   ``CourierError/Kind/invalidState`` while the record is being sent.
    @discardableResult
    public func retry(id: String) async throws(CourierError) -> QueueRecord {
        let now = configuration.now()
        let current = try await store.record(id: id)
        let age = current?.request.maximumAge ?? configuration.maximumAge
        let record = try await store.retry(id: id, now: now, expiresAt: age.map { now.addingTimeInterval($0.timeInterval) })
        waitingForCredentials.remove(id)
        if delivering { await planRound() }
        return record
    }

    /// Deletes a record that is not being sent.
    ///
    /// - Throws: ``CourierError/Kind/queueRecordNotFound`` for an unknown id;
    ///   ``CourierError/Kind/invalidState`` while the record is being sent.
    @discardableResult
    public func drop(id: String) async throws(CourierError) -> QueueRecord {
        let record = try await store.delete(id: id)
        heldCredentials[id] = nil
        waitingForCredentials.remove(id)
        if delivering { await planRound() }
        return record
    }

    /// Says the network is back: every waiting record is due now and every host counts as
    /// reachable again. Call it from your own reachability signal; the queue also listens to
    /// the system's network path itself (Network.framework on Apple platforms, the kernel's
    /// link and address messages on Linux).
    public func networkIsBack() async {
        guard !closed else { return }
        networkGeneration += 1
        unreachable.removeAll()
        try? await store.makeDue(origin: nil, now: configuration.now())
        if delivering { await planRound() }
    }

    /// Stops delivering and closes the database. Records being sent stay in the database
    /// and are sent again, with their key, by the next queue opened on it.
    public func close() async {
        guard !closed else { return }
        closed = true
        timer?.cancel()
        changeWatch?.cancel()
        leaseRenewal?.cancel()
        pathWatcher?.stop()
        for probe in probes.values { probe.cancel() }
        // A round claiming now starts its deliveries before they are stopped with the rest.
        if rounds.running { await withCheckedContinuation { rounds.waiters.append((rounds.requested + 1, $0)) } }
        let running = Array(deliveries.values)
        for delivery in running { delivery.cancel() }
        for delivery in running { await delivery.value }
        for subscriber in subscribers.values { subscriber.finish() }
        subscribers.removeAll()
        heldCredentials.removeAll()
        await store.close()
    }

    /// Writes a new record: the request, its id, the present, its expiry and the most records
    /// the queue holds.
    package typealias RecordWriter = @Sendable (QueuedRequest, String, Date, Date?, Int) async throws(CourierError) -> QueueRecord

    /// Where the records are kept.
    package var backend: any QueueBackend { store }

    func checkOpen() throws(CourierError) {
        if closed { throw CourierError(.clientShutdown, "The queue was closed; open it again to enqueue or deliver.") }
    }
}

extension CourierClient {
    /// Opens a durable queue whose requests this client sends; see ``DurableQueue``.
    public func openQueue(_ configuration: QueueConfiguration = QueueConfiguration()) async throws(CourierError) -> DurableQueue {
        try await DurableQueue.open(client: self, configuration: configuration)
    }
}
