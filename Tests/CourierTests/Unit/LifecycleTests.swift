import Foundation
import Testing

@testable import Courier

@Suite("Request lifecycle")
struct LifecycleTests {
    static let allStates: [RequestState] = [
        .ready, .started, .respondedFromCache, .respondedStaleFromCache, .completed, .failed, .cancelled,
    ]

    /// Every legal move, written out from the documented diagram.
    static let legal: [(RequestState, RequestState)] = [
        (.ready, .started), (.ready, .failed), (.ready, .cancelled),
        (.started, .respondedFromCache), (.started, .respondedStaleFromCache),
        (.started, .completed), (.started, .failed), (.started, .cancelled),
        (.respondedFromCache, .completed), (.respondedFromCache, .failed), (.respondedFromCache, .cancelled),
        (.respondedStaleFromCache, .completed), (.respondedStaleFromCache, .failed), (.respondedStaleFromCache, .cancelled),
    ]

    static let sampleIllegal: [(RequestState, RequestState)] = [
        (.completed, .started), (.failed, .completed), (.cancelled, .started), (.ready, .completed),
        (.ready, .ready), (.started, .started), (.started, .ready), (.completed, .completed),
        (.completed, .failed), (.failed, .cancelled), (.cancelled, .ready),
        (.ready, .respondedFromCache), (.respondedFromCache, .respondedStaleFromCache),
        (.respondedStaleFromCache, .respondedFromCache), (.respondedFromCache, .started),
    ]

    @Test("Legal transitions are allowed", arguments: legal)
    func legalTransition(from: RequestState, to: RequestState) {
        #expect(from.canTransition(to: to))
    }

    @Test("Illegal transitions are refused", arguments: sampleIllegal)
    func illegalTransition(from: RequestState, to: RequestState) {
        #expect(!from.canTransition(to: to))
    }

    @Test("The legal table is complete: every other pair of the 49 is refused")
    func exhaustive() {
        let legalSet = Set(Self.legal.map { "\($0.0)->\($0.1)" })
        #expect(legalSet.count == 14)
        var allowed = 0
        for from in Self.allStates {
            for to in Self.allStates {
                let expected = legalSet.contains("\(from)->\(to)")
                #expect(from.canTransition(to: to) == expected, "\(from) → \(to)")
                if from.canTransition(to: to) { allowed += 1 }
            }
        }
        #expect(allowed == 14)
    }

    @Test("Terminal states can go nowhere", arguments: [RequestState.completed, .failed, .cancelled])
    func terminal(state: RequestState) {
        #expect(state.isTerminal)
        for next in Self.allStates { #expect(!state.canTransition(to: next), "\(state) → \(next)") }
    }

    @Test("Non-terminal states", arguments: [RequestState.ready, .started, .respondedFromCache, .respondedStaleFromCache])
    func nonTerminal(state: RequestState) {
        #expect(!state.isTerminal)
    }

    @Test("A lifecycle starts ready and follows legal paths, returning the previous state")
    func lifecycleHappyPaths() throws {
        var plain = RequestLifecycle()
        #expect(plain.state == .ready)
        #expect(try plain.transition(to: .started) == .ready)
        #expect(try plain.transition(to: .completed) == .started)
        #expect(plain.state == .completed)

        var cached = RequestLifecycle()
        try cached.transition(to: .started)
        #expect(try cached.transition(to: .respondedStaleFromCache) == .started)
        #expect(try cached.transition(to: .failed) == .respondedStaleFromCache)
        #expect(cached.state == .failed)

        var early = RequestLifecycle()
        #expect(try early.transition(to: .cancelled) == .ready)
        #expect(early.state == .cancelled)
    }

    @Test(
        "An illegal move throws invalidState and leaves the state unchanged",
        arguments: [
            ([RequestState](), RequestState.completed),
            ([.started, .completed], .started),
            ([.started, .failed], .completed),
            ([.cancelled], .started),
            ([.started, .respondedFromCache], .respondedStaleFromCache),
            ([.started], .ready),
        ]
    )
    func lifecycleIllegal(path: [RequestState], next: RequestState) throws {
        var lifecycle = RequestLifecycle()
        for state in path { try lifecycle.transition(to: state) }
        let before = lifecycle.state
        let error = try #require(UnitSupport.error { try lifecycle.transition(to: next) })
        #expect(error.kind == .invalidState)
        #expect(error.message.contains("\(before)"))
        #expect(error.message.contains("\(next)"))
        #expect(lifecycle.state == before)
    }

    @Test("Raw values are stable names")
    func rawValues() {
        #expect(
            Self.allStates.map(\.rawValue) == [
                "ready", "started", "respondedFromCache", "respondedStaleFromCache", "completed", "failed", "cancelled",
            ])
    }
}
