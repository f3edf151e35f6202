import Courier
import CourierQueue
import CourierTesting
import Foundation
import Testing

@Suite("Durable queue against the in-process server")
struct DurableQueueTests {
    /// Runs `body` with a running server and a delivering queue in a fresh folder.
    func withServerAndQueue(_ body: (TestServer, DurableQueue) async throws -> Void) async throws {
        try await withServer { server in
            try await withQueueFolder { path in
                try await withQueue(path: path) { queue in try await body(server, queue) }
            }
        }
    }

    @Test func aRequestIsWrittenThenDeliveredOnceWithAnIdempotencyKey() async throws {
        try await withServerAndQueue { server, queue in
            let events = await queue.events()
            var request = CourierRequest<Void>(method: .post, path: server.url("/idempotent/note").absoluteString)
            request.body = .text("hello")
            let handle = try await queue.enqueue(request, tag: "note")
            #expect(handle.record.state == .pending)
            let record = try await handle.outcome()
            #expect(record.state == .delivered)
            #expect(record.attempts == 1)
            #expect(record.outcome?.status == 201)
            #expect(record.request.tag == "note")
            let entry = try #require(server.ledger.entries[record.request.idempotencyKey])
            #expect(entry.applied == 1 && entry.requests == 1)
            #expect(entry.body == Data("hello".utf8))
            var kinds: [String] = []
            for await event in events {
                switch event {
                case .queued: kinds.append("queued")
                case .attempt: kinds.append("attempt")
                case .delivered(_, let response):
                    kinds.append("delivered \(response.status)")
                default: kinds.append("other")
                }
                // The outcome was recorded, so its final event is already in the buffer.
                if event.record.state.isFinal { break }
            }
            #expect(kinds == ["queued", "attempt", "delivered 201"])
        }
    }

    /// A body kept in a file is read while it is sent, at each attempt, and arrives whole; one
    /// that is gone fails the attempt with a message naming the file.
    @Test func aFileBodyIsSentFromItsFile() async throws {
        try await withServerAndQueue { server, queue in
            try await withTemporaryFolder { folder in
                let file = folder.appendingPathComponent("note.bin")
                let bytes = Data(TestServer.bytes(count: 200_000, seed: 12))
                try bytes.write(to: file)
                var queued = QueuedRequest(method: .post, url: server.url("/idempotent/file"), body: .file(path: file.path))
                queued.headers.add(name: "Content-Type", value: "application/octet-stream")
                let record = try await queue.enqueue(queued).outcome()
                #expect(record.state == .delivered)
                #expect(server.ledger.entries[record.request.idempotencyKey]?.body == bytes)

                let missing = QueuedRequest(method: .post, url: server.url("/idempotent/missing"), body: .file(path: folder.appendingPathComponent("gone").path))
                let failed = try await queue.enqueue(missing).outcome()
                #expect(failed.state == .failed)
                #expect(failed.outcome?.failure?.contains("gone") == true)
                #expect(failed.outcome?.failure?.contains("body of a queued request") == true)
                #expect(server.ledger.entries[failed.request.idempotencyKey] == nil)
            }
        }
    }

    /// What the queue cannot keep is refused at enqueue, with nothing written or sent: a
    /// request's own credential, and its own connection settings (a TLS policy with pins or a
    /// client key, a proxy), which a later delivery would otherwise silently go without.
    @Test func settingsTheQueueCannotKeepAreRefusedAtEnqueue() async throws {
        try await withServerAndQueue { server, queue in
            var pinned = CourierRequest<Void>(method: .post, path: server.url("/idempotent/pinned").absoluteString, body: .text("x"))
            pinned.connection.tls = TLSPolicy(pins: [HostPins(host: "127.0.0.1", pins: [try .publicKeySHA256(Data(repeating: 7, count: 32))])])
            var viaProxy = CourierRequest<Void>(method: .post, path: server.url("/idempotent/proxied").absoluteString, body: .text("x"))
            viaProxy.connection.proxy = .direct
            var withCredential = CourierRequest<Void>(method: .post, path: server.url("/idempotent/credential").absoluteString, body: .text("x"))
            withCredential.credential = .password(user: "u", password: "p")
            for (request, kind, words) in [
                (pinned, CourierError.Kind.invalidConfiguration, "CourierRequest.connection"),
                (viaProxy, .invalidConfiguration, "CourierRequest.connection"),
                (withCredential, .invalidBody, "CourierRequest.credential"),
            ] {
                let error = await courierError { _ = try await queue.enqueue(request) }
                #expect(error?.kind == kind)
                #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
            }
            #expect(try await queue.records().isEmpty)
            #expect(server.receivedRequests.isEmpty)
        }
    }

    @Test func aKeyTheCallerGaveIsKept() async throws {
        try await withServerAndQueue { server, queue in
            var request = CourierRequest<Void>(method: .put, path: server.url("/idempotent/given").absoluteString)
            request.headers.add(name: "Idempotency-Key", value: "caller-key-1")
            let record = try await queue.enqueue(request).outcome()
            #expect(record.request.idempotencyKey == "caller-key-1")
            #expect(server.ledger.entries["caller-key-1"]?.applied == 1)
        }
    }

    @Test func requestsQueuedWhileTheServerIsDownAreAllDeliveredInOrderOnceItIsUp() async throws {
        let reserved = try vacatedPort()
        defer { withExtendedLifetime(reserved) {} }
        let port = reserved.port
        let ledger = IdempotencyLedger()
        try await withQueueFolder { path in
            try await withQueue(path: path) { queue in
                var handles: [DurableRequestHandle] = []
                for index in 0..<5 {
                    let request = CourierRequest<Void>(method: .post, path: "http://127.0.0.1:\(port)/idempotent/\(index)", body: .text("\(index)"))
                    handles.append(try await queue.enqueue(request))
                }
                let first = try await handles[0].firstAttempt()
                #expect(first.state == .pending)
                #expect(first.outcome?.failure?.hasPrefix("connectionFailed") == true)
                for handle in handles.dropFirst() {
                    let waiting = try await handle.firstAttempt()
                    #expect(waiting.state == .pending && waiting.attempts == 0)
                }
                let server = try await TestServer.start(port: port, ledger: ledger)
                await queue.networkIsBack()
                for handle in handles {
                    #expect(try await handle.outcome().state == .delivered)
                }
                try await server.shutdown()
                let bodies = ledger.appliedKeys.compactMap { ledger.entries[$0].map { String(decoding: $0.body, as: UTF8.self) } }
                #expect(bodies == ["0", "1", "2", "3", "4"])
                #expect(ledger.entries.values.allSatisfy { $0.applied == 1 })
            }
        }
    }

    /// A TCP probe, or a health URL (`/get` on the same port).
    @Test(arguments: [false, true])
    func theProbeFindsTheServerBackWithoutBeingTold(usesHealthURL: Bool) async throws {
        let reserved = try vacatedPort()
        defer { withExtendedLifetime(reserved) {} }
        let port = reserved.port
        let ledger = IdempotencyLedger()
        try await withQueueFolder { path in
            try await withQueue(path: path, configure: { $0.healthURL = usesHealthURL ? URL(string: "http://127.0.0.1:\(port)/get") : nil }) { queue in
                let request = CourierRequest<Void>(method: .post, path: "http://127.0.0.1:\(port)/idempotent/probe", body: .text("p"))
                let handle = try await queue.enqueue(request)
                #expect(try await handle.firstAttempt().state == .pending)
                let server = try await TestServer.start(port: port, ledger: ledger)
                #expect(try await handle.outcome().state == .delivered)
                try await server.shutdown()
                #expect(ledger.entries.count == 1)
            }
        }
    }

    @Test func anUnorderedRequestOvertakesAHeadThatWaits() async throws {
        try await withServerAndQueue { server, queue in
            // The head is told to come back in a minute.
            let waiting = try await queue.enqueue(
                CourierRequest<Void>(method: .post, path: server.url("/flaky?failures=100&status=503&retry_after=60").absoluteString)
            )
            #expect(try await waiting.firstAttempt().state == .pending)
            let blocked = try await queue.enqueue(CourierRequest<Void>(method: .post, path: server.url("/idempotent/blocked").absoluteString))
            let free = try await queue.enqueue(
                CourierRequest<Void>(method: .post, path: server.url("/idempotent/free").absoluteString), isOrdered: false
            )
            #expect(try await free.outcome().state == .delivered)
            let held = try await queue.record(id: blocked.id)
            #expect(held?.state == .pending && held?.attempts == 0)
            #expect(server.ledger.entries.values.contains { $0.path == "/idempotent/free" })
            _ = try await queue.drop(id: waiting.id)
            #expect(try await blocked.outcome().state == .delivered)
        }
    }

    @Test func ordersArePreservedPerHostWhileTheServerIsSlow() async throws {
        try await withServerAndQueue { server, queue in
            var handles: [DurableRequestHandle] = []
            for index in 0..<8 {
                let url = server.url("/idempotent/\(index)?delay=0.02").absoluteString
                handles.append(try await queue.enqueue(CourierRequest<Void>(method: .post, path: url, body: .text("\(index)"))))
            }
            for handle in handles { #expect(try await handle.outcome().state == .delivered) }
            let order = server.ledger.appliedKeys.compactMap { server.ledger.entries[$0]?.path }
            #expect(order == (0..<8).map { "/idempotent/\($0)" })
        }
    }

    @Test func clientErrorsAreFinalFailuresKeptAsResults() async throws {
        try await withServerAndQueue { server, queue in
            let record = try await queue.enqueue(CourierRequest<Void>(method: .post, path: server.url("/status/422").absoluteString)).outcome()
            #expect(record.state == .failed)
            #expect(record.attempts == 1)
            #expect(record.outcome?.status == 422)
            let listed = try await queue.records()
            #expect(listed.map(\.state) == [.failed])
        }
    }

    @Test func aConflictForAKeyInFlightIsRetriedLater() async throws {
        try await withServerAndQueue { server, queue in
            // Another request with the same key is still being processed by the server.
            server.ledger.hold(key: "busy-key", path: "/idempotent/busy")
            var request = CourierRequest<Void>(method: .post, path: server.url("/idempotent/busy").absoluteString)
            request.headers.add(name: "Idempotency-Key", value: "busy-key")
            let handle = try await queue.enqueue(request)
            let first = try await handle.firstAttempt()
            #expect(first.state == .pending)
            #expect(first.outcome?.status == 409)
            server.ledger.release(key: "busy-key")
            let record = try await handle.outcome()
            #expect(record.state == .delivered)
            #expect(record.attempts >= 2)
            #expect(server.ledger.entries["busy-key"]?.applied == 1)
        }
    }
}
