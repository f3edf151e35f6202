import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

@Suite("Chains against the in-process server")
struct ChainIntegrationTests {
    struct DecisionFailed: Error, Equatable {}

    @Test func eachStepSeesThePreviousResultsAndDecides() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let events = NIOLockedValueBox<[String]>([])
                let hooks = ChainHooks(
                    willStart: { events.withLockedValue { $0.append("willStart") } },
                    didStop: { outcome in
                        let steps = (try? outcome.get())?.count ?? -1
                        events.withLockedValue { $0.append("didStop \(steps)") }
                    }
                )
                let chain = Chain(hooks: hooks) { history in
                    switch history.count {
                    case 0:
                        return .send(CourierRequest<Echo>(path: "/anything/first?token=t42"))
                    case 1:
                        let token = try history[0].value(as: Echo.self).args["token"]
                        guard case .string(let value) = token else { throw DecisionFailed() }
                        var parallel = Batch(mode: .failFast, maximumConcurrency: 2)
                        parallel.add(CourierRequest<Echo>(path: "/anything/second?token=\(value)"))
                        parallel.add(CourierRequest<String>(path: "/base64/b2s="))
                        return .send(parallel)
                    default:
                        return .stop
                    }
                }

                let history = try await client.run(chain)

                #expect(history.map(\.step) == [0, 1])
                #expect(try history[1].value(at: 0, as: Echo.self).url.hasSuffix("/anything/second?token=t42"))
                #expect(try history[1].value(at: 1, as: String.self) == "ok")
                #expect(throws: CourierError.self) { try history[1].value(at: 1, as: Int.self) }
                #expect(server.receivedRequests.first?.uri == "/anything/first?token=t42")
                #expect(server.receivedRequests.count == 3)
                #expect(events.withLockedValue { $0 } == ["willStart", "didStop 2"])
            }
        }
    }

    @Test func aFailingStepStopsTheChainWithItsError() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let stopped = NIOLockedValueBox<ChainError?>(nil)
                let chain = Chain(
                    hooks: ChainHooks(didStop: { outcome in
                        if case .failure(let error) = outcome { stopped.withLockedValue { $0 = error } }
                    })
                ) { history in
                    switch history.count {
                    case 0: return .send(CourierRequest<Data>(path: "/get?step=0"))
                    case 1: return .send(CourierRequest<Data>(path: "/status/404"))
                    default: return .send(CourierRequest<Data>(path: "/get?step=2"))
                    }
                }
                do throws(ChainError) {
                    _ = try await client.run(chain)
                    Issue.record("a chain whose step fails must throw")
                } catch {
                    #expect(error.step == 1)
                    #expect((error.error as? CourierError)?.kind == .validationFailed)
                    #expect(error.history.count == 1)
                }
                #expect(stopped.withLockedValue { $0?.step } == 1)
                #expect(!server.receivedRequests.contains { $0.uri.contains("step=2") })
            }
        }
    }

    @Test func aThrowingDecisionStopsTheChain() async throws {
        try await withClient(nil) { client in
            let chain = Chain { _ in throw DecisionFailed() }
            do throws(ChainError) {
                _ = try await client.run(chain)
                Issue.record("a chain whose decision throws must throw")
            } catch {
                #expect(error.step == 0)
                #expect(error.error as? DecisionFailed == DecisionFailed())
            }
        }
    }

    @Test func cancellingTheChainCancelsTheRunningStep() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let decisions = NIOLockedValueBox(0)
                let chain = Chain { history in
                    decisions.withLockedValue { $0 += 1 }
                    return history.isEmpty ? .send(CourierRequest<Data>(path: "/gate/held")) : .send(CourierRequest<Data>(path: "/get?after"))
                }
                let task = Task { try await client.run(chain) }
                #expect(await eventually { server.receivedRequests.count == 1 })
                task.cancel()
                let result = await task.result
                guard case .failure(let error as ChainError) = result else {
                    Issue.record("expected a ChainError, got \(result)")
                    return
                }
                #expect(error.step == 0)
                #expect((error.error as? CourierError)?.kind == .cancelled)
                #expect(decisions.withLockedValue { $0 } == 1)
                #expect(await eventually { server.openConnections == 0 }, "the cancelled step kept its connection")
                #expect(server.receivedRequests.count == 1)
            }
        }
    }
}
