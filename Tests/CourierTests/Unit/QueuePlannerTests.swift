import Foundation
import Testing

@testable import Courier
@testable import CourierQueue

@Suite("Durable queue planning")
struct QueuePlannerTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func record(
        _ id: String, host: String = "a.example", state: QueueRecord.State = .pending, ordered: Bool = true,
        dueIn: TimeInterval = 0, expiresIn: TimeInterval? = nil, lease: QueueLease? = nil, sequence: Int64
    ) -> QueueRecord {
        let request = QueuedRequest(method: .post, url: URL(string: "https://\(host)/items")!, isOrdered: ordered)
        return QueueRecord(
            id: id, request: request, state: state, attempts: 0, createdAt: now, nextAttemptAt: now.addingTimeInterval(dueIn),
            expiresAt: expiresIn.map { now.addingTimeInterval($0) }, outcome: nil, sequence: sequence, lease: lease
        )
    }

    static func plan(
        _ records: [QueueRecord], sending: Set<String> = [], unreachable: [String: Date] = [:], gone: Set<String> = []
    ) -> QueuePlanner.Plan {
        QueuePlanner.plan(records, now: now, sending: sending, unreachable: unreachable, probing: [], isGone: { gone.contains($0) })
    }

    /// A lease held by `holder` that ends `seconds` from now.
    static func lease(_ holder: String = "h/1/a", endingIn seconds: TimeInterval) -> QueueLease {
        QueueLease(holder: holder, expiresAt: now.addingTimeInterval(seconds))
    }

    @Test func onlyTheOldestOrderedRecordOfAHostIsSent() {
        let plan = Self.plan([
            Self.record("a1", sequence: 1), Self.record("a2", sequence: 2),
            Self.record("b1", host: "b.example", sequence: 3), Self.record("b2", host: "b.example", sequence: 4),
        ])
        #expect(plan.send == ["a1", "b1"])
    }

    @Test func aRecordInFlightHoldsBackTheRestOfItsHost() {
        let plan = Self.plan([Self.record("a1", state: .inFlight, lease: Self.lease(endingIn: 20), sequence: 1), Self.record("a2", sequence: 2)])
        #expect(plan.send.isEmpty)
        #expect(plan.wakeAt == Self.now.addingTimeInterval(20))
        let sending = Self.plan([Self.record("a1", sequence: 1), Self.record("a2", sequence: 2)], sending: ["a1"])
        #expect(sending.send.isEmpty)
    }

    @Test func aRecordWhoseLeaseEndedIsSentAgainBeforeTheRestOfItsHost() {
        let ended = Self.plan([Self.record("a1", state: .inFlight, lease: Self.lease(endingIn: -1), sequence: 1), Self.record("a2", sequence: 2)])
        #expect(ended.send == ["a1"])
        #expect(ended.goneHolders.isEmpty)
        // A record left in flight by a database from before leases has no lease: it is abandoned.
        let unleased = Self.plan([Self.record("a1", state: .inFlight, sequence: 1)])
        #expect(unleased.send == ["a1"])
    }

    @Test func aRecordWhoseHolderIsGoneIsSentAgainBeforeItsLeaseEnds() {
        let records = [
            Self.record("a1", state: .inFlight, lease: Self.lease("dead", endingIn: 25), sequence: 1),
            Self.record("b1", host: "b.example", state: .inFlight, lease: Self.lease("alive", endingIn: 25), sequence: 2),
        ]
        let plan = Self.plan(records, gone: ["dead"])
        #expect(plan.send == ["a1"])
        #expect(plan.goneHolders == ["dead"])
        #expect(plan.wakeAt == Self.now.addingTimeInterval(25))
        // A live holder of this host is looked at again within a second: its death would
        // change nothing in the storage.
        let watched = QueuePlanner.plan(
            records, now: Self.now, sending: [], unreachable: [:], probing: [], isGone: { _ in false }, isWatched: { $0 == "alive" }
        )
        #expect(watched.send.isEmpty)
        #expect(watched.wakeAt == Self.now.addingTimeInterval(QueuePlanner.watchInterval))
        // This worker's own records are never taken back from it.
        #expect(Self.plan(records, sending: ["a1"], gone: ["dead"]).send.isEmpty)
    }

    @Test func anAbandonedRecordPastItsAgeExpires() {
        let plan = Self.plan([Self.record("a1", state: .inFlight, expiresIn: -1, lease: Self.lease(endingIn: -1), sequence: 1)])
        #expect(plan.expire == ["a1"])
        #expect(plan.send.isEmpty)
        let held = Self.plan([Self.record("a1", state: .inFlight, expiresIn: -1, lease: Self.lease(endingIn: 5), sequence: 1)])
        #expect(held.expire.isEmpty)
    }

    @Test func aHeadWaitingForItsBackoffHoldsBackLaterRecordsAndSetsTheWakeUp() {
        let plan = Self.plan([Self.record("a1", dueIn: 30, sequence: 1), Self.record("a2", sequence: 2)])
        #expect(plan.send.isEmpty)
        #expect(plan.wakeAt == Self.now.addingTimeInterval(30))
    }

    @Test func unorderedRecordsDoNotWaitAndHoldNothingBack() {
        let plan = Self.plan([
            Self.record("a1", dueIn: 30, sequence: 1), Self.record("u1", ordered: false, sequence: 2),
            Self.record("u2", ordered: false, sequence: 3),
        ])
        #expect(plan.send == ["u1", "u2"])
        let first = Self.plan([Self.record("u1", ordered: false, dueIn: 30, sequence: 1), Self.record("a1", sequence: 2)])
        #expect(first.send == ["a1"])
    }

    @Test func expiredRecordsAreReportedAndNoLongerHoldTheirHost() {
        let plan = Self.plan([Self.record("a1", dueIn: 30, expiresIn: -1, sequence: 1), Self.record("a2", sequence: 2)])
        #expect(plan.expire == ["a1"])
        #expect(plan.send == ["a2"])
        let later = Self.plan([Self.record("a1", dueIn: 300, expiresIn: 60, sequence: 1)])
        #expect(later.wakeAt == Self.now.addingTimeInterval(60))
    }

    @Test func anUnreachableHostIsProbedInsteadOfSentTo() {
        let due = Self.plan([Self.record("a1", sequence: 1)], unreachable: ["https://a.example:443": Self.now])
        #expect(due.send.isEmpty)
        #expect(due.probe == ["https://a.example:443"])
        let later = Self.plan([Self.record("a1", sequence: 1)], unreachable: ["https://a.example:443": Self.now.addingTimeInterval(5)])
        #expect(later.probe.isEmpty)
        #expect(later.wakeAt == Self.now.addingTimeInterval(5))
    }

    static func slots(_ records: [QueueRecord]) -> [QueuePlanner.Slot] {
        records.map {
            QueuePlanner.Slot(
                id: $0.id, origin: $0.request.origin, isOrdered: $0.request.isOrdered, state: $0.state,
                nextAttemptAt: $0.nextAttemptAt, expiresAt: $0.expiresAt
            )
        }
    }

    @Test func recordsWaitingForCredentialsAndTheOnesOrderedBehindThemAreStuck() {
        let stuck = Self.slots([
            Self.record("a1", dueIn: 300, sequence: 1), Self.record("a2", sequence: 2),
            Self.record("b1", host: "b.example", dueIn: 300, sequence: 3),
        ])
        #expect(QueuePlanner.waitsOnlyForCredentials(stuck, waiting: ["a1", "b1"]))
        #expect(!QueuePlanner.waitsOnlyForCredentials(stuck, waiting: ["a1"]), "b1 can still go")
        #expect(!QueuePlanner.waitsOnlyForCredentials([], waiting: []))
    }

    @Test func anythingThatCanStillMoveMeansTheQueueIsNotStuck() {
        let unordered = Self.slots([Self.record("a1", ordered: false, sequence: 1), Self.record("a2", sequence: 2)])
        #expect(!QueuePlanner.waitsOnlyForCredentials(unordered, waiting: ["a1"]), "an unordered record holds nothing back")
        let earlier = Self.slots([Self.record("a1", sequence: 1), Self.record("a2", sequence: 2)])
        #expect(!QueuePlanner.waitsOnlyForCredentials(earlier, waiting: ["a2"]), "the record before it can go")
        let sending = Self.slots([Self.record("a1", state: .inFlight, sequence: 1)])
        #expect(!QueuePlanner.waitsOnlyForCredentials(sending, waiting: ["a1"]), "a record in flight is not waiting")
    }
}

@Suite("Durable queue decisions")
struct QueueDecisionTests {
    static let policy = CourierRetryPolicy(maximumAttempts: 5, baseDelay: .seconds(1), maximumDelay: .seconds(60))

    static func decide(status: Int? = nil, retryAfter: String? = nil, error: CourierError? = nil, attempts: Int = 1) -> QueueDecision {
        QueueDecision.decide(
            status: status, retryAfter: retryAfter, error: error, attempts: attempts, policy: policy, jitter: 1, now: QueuePlannerTests.now
        )
    }

    @Test(arguments: [200, 201, 204, 304])
    func successAndRedirectsAreDelivered(status: Int) {
        #expect(Self.decide(status: status) == .delivered)
    }

    @Test(arguments: [400, 401, 403, 404, 410, 422])
    func otherClientErrorsAreFinalFailures(status: Int) {
        #expect(Self.decide(status: status) == .failed)
    }

    @Test(arguments: [408, 409, 425, 429, 500, 502, 503, 504])
    func busyAndServerErrorsAreRetriedWithBackoff(status: Int) {
        #expect(Self.decide(status: status, attempts: 2) == .retry(after: .seconds(2)))
    }

    @Test func retryAfterIsHonouredOn429And503() {
        #expect(Self.decide(status: 429, retryAfter: "7") == .retry(after: .seconds(7)))
        #expect(Self.decide(status: 503, retryAfter: "9") == .retry(after: .seconds(9)))
    }

    @Test func aRefusedConnectionMeansTheHostIsUnreachable() {
        var refused = CourierError(.connectionFailed, "refused")
        refused.requestMayHaveBeenSent = false
        #expect(Self.decide(error: refused) == .unreachable(after: .seconds(1)))
        #expect(Self.decide(error: CourierError(.timeout, "slow")) == .retry(after: .seconds(1)))
        #expect(Self.decide(error: CourierError(.transport, "reset")) == .retry(after: .seconds(1)))
        #expect(Self.decide(error: CourierError(.tls, "bad certificate")) == .failed)
    }

    @Test func attemptsRunOutIntoAFailure() {
        #expect(Self.decide(status: 503, attempts: 5) == .failed)
    }
}
