import Courier
import Foundation
import NIOConcurrencyHelpers

@testable import CourierQueue

/// A queue store where another worker, on another host, claims every due record just before
/// this worker's first claim: the race between a worker's plan and its claim, made certain.
/// The other worker never settles what it took, as one that died would not.
final class ClaimRacingBackend: QueueBackend {
    let store: any QueueBackend
    let rival: String
    let rivalLease: Duration
    private let taken = NIOLockedValueBox<[String]?>(nil)

    init(store: any QueueBackend, rival: String, rivalLease: Duration) {
        self.store = store
        self.rival = rival
        self.rivalLease = rivalLease
    }

    /// The records the rival took, once it has.
    var rivalTook: [String]? { taken.withLockedValue { $0 } }

    var location: String { store.location }
    var warnings: [String] { store.warnings }

    func claim(
        limit: Int, lease: QueueLease, now: Date, goneHolders: [String], sending: [String], skippingOrigins: [String]
    ) async throws(CourierError) -> [QueueRecord] {
        if taken.withLockedValue({ $0 == nil }) {
            let rivalLease = QueueLease(holder: rival, expiresAt: now.addingTimeInterval(rivalLease.timeInterval))
            let took = try await store.claim(limit: limit, lease: rivalLease, now: now, goneHolders: [], sending: [], skippingOrigins: [])
            taken.withLockedValue { $0 = took.map(\.id) }
        }
        return try await store.claim(
            limit: limit, lease: lease, now: now, goneHolders: goneHolders, sending: sending, skippingOrigins: skippingOrigins
        )
    }

    func insert(_ request: QueuedRequest, id: String, now: Date, expiresAt: Date?, maximumRecords: Int) async throws(CourierError) -> QueueRecord {
        try await store.insert(request, id: id, now: now, expiresAt: expiresAt, maximumRecords: maximumRecords)
    }
    func activeSlots() async throws(CourierError) -> [QueuePlanner.Slot] { try await store.activeSlots() }
    func allRecords() async throws(CourierError) -> [QueueRecord] { try await store.allRecords() }
    func record(id: String) async throws(CourierError) -> QueueRecord? { try await store.record(id: id) }
    func activeCount() async throws(CourierError) -> Int { try await store.activeCount() }
    func renew(_ ids: [String], holder: String, expiresAt: Date) async throws(CourierError) {
        try await store.renew(ids, holder: holder, expiresAt: expiresAt)
    }
    func settle(
        _ record: QueueRecord, holder: String, state: QueueRecord.State, outcome: QueueOutcome?, nextAttemptAt: Date?, countsAttempt: Bool
    ) async throws(CourierError) -> QueueRecord? {
        try await store.settle(record, holder: holder, state: state, outcome: outcome, nextAttemptAt: nextAttemptAt, countsAttempt: countsAttempt)
    }
    func expire(id: String, now: Date, goneHolders: [String]) async throws(CourierError) -> QueueRecord? {
        try await store.expire(id: id, now: now, goneHolders: goneHolders)
    }
    func makeDue(origin: String?, now: Date) async throws(CourierError) { try await store.makeDue(origin: origin, now: now) }
    func makeDueWaitingForCredentials(now: Date) async throws(CourierError) { try await store.makeDueWaitingForCredentials(now: now) }
    func retry(id: String, now: Date, expiresAt: Date?) async throws(CourierError) -> QueueRecord {
        try await store.retry(id: id, now: now, expiresAt: expiresAt)
    }
    func delete(id: String) async throws(CourierError) -> QueueRecord { try await store.delete(id: id) }
    func changes() -> AsyncStream<Void> { store.changes() }
    func close() async { await store.close() }
}
