import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

extension TestServer {
    /// Opens the gate `name`: every request waiting at `/gate/NAME` is answered now, and later
    /// ones are answered at once. Lets a test hold responses for as long as it needs, without
    /// guessing a delay.
    public func openGate(_ name: String) {
        gates.open(name)
    }

    /// The number of requests waiting at `/gate/NAME` now.
    public func requestsWaiting(atGate name: String) -> Int {
        gates.waiting(at: name)
    }
}

extension TestServerRoutes {
    /// `/gate/NAME?drop=1`: the `/get`-style echo, sent once the test calls
    /// ``TestServer/openGate(_:)`` with NAME; with `drop=1`, a head that announces 100 bytes,
    /// then the connection closes before any of them.
    static func gate(_ request: TestRequest, _ name: String) -> TestResponse {
        var response = TestResponse.json(EchoBuilder.echo(request))
        if request.queryValue("drop") == "1" {
            let source = GeneratedBytesSource(seed: 1, range: 0..<100, chunkSize: 10, abortAfter: 0)
            response = TestResponse(status: .ok, body: .stream(length: 100, source: source))
        }
        response.gate = name
        return response
    }
}

/// The gates of a ``TestServer``: named points where responses wait until the test opens them.
final class Gates: Sendable {
    private enum Gate {
        case closed([EventLoopPromise<Void>])
        case open
    }

    private let gates = NIOLockedValueBox<[String: Gate]>([:])

    /// A future that completes when the gate `name` is open.
    func wait(at name: String, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        gates.withLockedValue { gates in
            switch gates[name] {
            case .open:
                return eventLoop.makeSucceededVoidFuture()
            case .closed(var waiting):
                let promise = eventLoop.makePromise(of: Void.self)
                waiting.append(promise)
                gates[name] = .closed(waiting)
                return promise.futureResult
            case nil:
                let promise = eventLoop.makePromise(of: Void.self)
                gates[name] = .closed([promise])
                return promise.futureResult
            }
        }
    }

    func open(_ name: String) {
        let waiting = gates.withLockedValue { gates -> [EventLoopPromise<Void>] in
            defer { gates[name] = .open }
            if case .closed(let waiting) = gates[name] { return waiting }
            return []
        }
        for promise in waiting { promise.succeed() }
    }

    /// Opens every gate, so that no response is left waiting (and no promise unfulfilled).
    func openAll() {
        for name in gates.withLockedValue({ Array($0.keys) }) { open(name) }
    }

    func waiting(at name: String) -> Int {
        gates.withLockedValue { gates in
            if case .closed(let waiting) = gates[name] { return waiting.count }
            return 0
        }
    }
}
