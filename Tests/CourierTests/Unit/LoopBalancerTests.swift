import Testing

@testable import Courier

@Suite("Loop balancer")
struct LoopBalancerTests {
    let origin = "http://127.0.0.1:8080"

    @Test func requestsSentOneAfterAnotherAllGoToTheHomeLoop() {
        let balancer = LoopBalancer(loopCount: 2)
        let home = balancer.home(of: origin)
        var chosen: [Int] = []
        for _ in 0..<10 {
            let (loop, wasIdle) = balancer.acquire(origin)
            #expect(wasIdle)
            chosen.append(loop)
            balancer.release(origin, loop: loop)
        }
        #expect(chosen == Array(repeating: home, count: 10))
    }

    @Test func requestsInFlightTogetherSpreadEvenlyFromHome() {
        let balancer = LoopBalancer(loopCount: 3)
        let home = balancer.home(of: origin)
        let chosen = (0..<7).map { _ in balancer.acquire(origin).loop }
        #expect(chosen.first == home)
        #expect(balancer.load(of: origin).sorted() == [2, 2, 3])
        #expect(balancer.load(of: origin)[home] == 3)
    }

    @Test func aLoopWithFewerRequestsInFlightIsChosenNext() {
        let balancer = LoopBalancer(loopCount: 2)
        let home = balancer.home(of: origin)
        let away = 1 - home
        for _ in 0..<4 { _ = balancer.acquire(origin).loop }
        #expect(balancer.load(of: origin) == [2, 2])
        balancer.release(origin, loop: away)
        #expect(balancer.acquire(origin) == (away, false))
        balancer.release(origin, loop: home)
        balancer.release(origin, loop: home)
        #expect(balancer.acquire(origin) == (home, true))
    }

    @Test func aRequestStartedOnAChosenLoopIsCountedThereAndBalancedAgainst() {
        let balancer = LoopBalancer(loopCount: 2)
        let home = balancer.home(of: origin)
        let away = 1 - home
        // Two requests started where slots freed, both away from home.
        balancer.acquire(origin, on: away)
        balancer.acquire(origin, on: away)
        #expect(balancer.load(of: origin)[away] == 2)
        // The balancer's own choice then goes home, the loop with fewer in flight.
        #expect(balancer.acquire(origin) == (home, true))
        balancer.release(origin, loop: away)
        balancer.release(origin, loop: away)
        balancer.release(origin, loop: home)
        #expect(balancer.load(of: origin) == [0, 0])
    }

    @Test func idleOriginsAreKeptUpToTheBoundAndForgottenPastIt() {
        let balancer = LoopBalancer(loopCount: 2)
        let count = LoopBalancer.idleOriginsKept + 40
        for index in 0..<count {
            let origin = "http://host\(index).example:80"
            let (loop, wasIdle) = balancer.acquire(origin)
            #expect(wasIdle)
            balancer.release(origin, loop: loop)
        }
        #expect(balancer.originsInFlight == 0)
        #expect(balancer.originsHeld == LoopBalancer.idleOriginsKept)
        // A kept origin's counts start from zero again.
        let kept = "http://host0.example:80"
        #expect(balancer.load(of: kept) == [0, 0])
        #expect(balancer.acquire(kept) == (balancer.home(of: kept), true))
        #expect(balancer.originsInFlight == 1)
    }

    @Test func originsAreBalancedApartAndCountInFlightOnlyWhileBusy() {
        let balancer = LoopBalancer(loopCount: 2)
        let other = "https://example.com"
        let first = (0..<3).map { _ in balancer.acquire(origin).loop }
        #expect(balancer.acquire(other) == (balancer.home(of: other), true))
        #expect(balancer.originsInFlight == 2)
        for loop in first { balancer.release(origin, loop: loop) }
        #expect(balancer.originsInFlight == 1)
        #expect(balancer.load(of: origin) == [0, 0])
        balancer.release(other, loop: balancer.home(of: other))
        #expect(balancer.originsInFlight == 0)
        // A release with nothing in flight changes nothing.
        balancer.release(other, loop: 0)
        #expect(balancer.originsInFlight == 0)
    }

    @Test func oneLoopTakesEverything() {
        let balancer = LoopBalancer(loopCount: 1)
        #expect((0..<3).map { _ in balancer.acquire(origin).loop } == [0, 0, 0])
        #expect(balancer.load(of: origin) == [3])
    }
}
