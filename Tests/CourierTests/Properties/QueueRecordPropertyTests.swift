import Foundation
import Logging
import PropertyBased
import Testing

@testable import Courier
@testable import CourierQueue

@Suite("Property: durable queue records")
struct QueueRecordPropertyTests {
    static let now = Date(timeIntervalSince1970: 1_795_219_200)

    /// A request as `enqueue` writes it, with every optional part present.
    static let sampleRequest: QueuedRequest = {
        var request = QueuedRequest(
            method: .post, url: URL(string: "https://api.example.test/notes?x=1")!, headers: Headers([("Content-Type", "text/plain")]),
            body: .data(Data("note".utf8)), tag: "t", isOrdered: true, maximumAge: .seconds(86_400), timeout: .milliseconds(1500)
        )
        request.credentialHeaderNames = ["Authorization"]
        return request
    }()

    static var samples: [String] {
        let encoder = JSONEncoder()
        let outcome = QueueOutcome(status: 201, reasonPhrase: "Created", headers: Headers([("A", "b")]), body: Data("ok".utf8), recordedAt: now, missingCredentials: ["Cookie"])
        return [
            String(decoding: try! encoder.encode(sampleRequest), as: UTF8.self),
            String(decoding: try! encoder.encode(outcome), as: UTF8.self),
            #"{"method":"GET","url":"https://a.test/","headers":[],"idempotencyKey":"k","isOrdered":false,"timeout":[9223372036854775807,0],"maximumAge":[-1,0]}"#,
            #"{"method":"PUT","url":"https://a.test/","headers":[["x","y"]],"idempotencyKey":"k","isOrdered":true,"body":{"file":{"path":"/nonexistent/courier/body"}}}"#,
        ]
    }

    @Test("a request or outcome read from any record text is refused or usable: its durations and its HTTP request never trap")
    func decodedRecords() async {
        let samples = Self.samples
        await propertyCheck(count: Property.cases(1500), input: Property.hostile(samples, favouring: "{}[]\":,0123456789")) { text in
            let data = Data(text.utf8)
            if let request = try? JSONDecoder().decode(QueuedRequest.self, from: data) { Self.use(request) }
            if let outcome = try? JSONDecoder().decode(QueueOutcome.self, from: data) {
                _ = outcome.response(url: URL(string: "https://a.test/")!)
            }
        }
    }

    @Test("any request encodes and decodes to itself")
    func roundTrip() async throws {
        let method = Gen<Int>.value(in: 0...4).map { [CourierHTTPMethod.get, .post, .put, .delete, .patch][$0] }
        // Any duration whose seconds an Int64 holds, as `enqueue` can write.
        let durations = zip(Property.integer(in: (Int64.min + 1)...(Int64.max - 1)).optional, Property.integer(in: -999_999_999_999_999_999...999_999_999_999_999_999))
            .map { seconds, attoseconds in seconds.map { Duration(secondsComponent: $0, attosecondsComponent: attoseconds) } }
        let parts = zip(Property.unicode(upTo: 12), zip(Property.unicode(), Property.unicode()).array(of: 0...4), Property.bytes(upTo: 64).optional, Property.unicode().optional)
        await propertyCheck(count: Property.cases(1000), input: method, parts, zip(durations, durations), Gen<Bool>.bool) { method, parts, durations, ordered in
            let (path, fields, body, tag) = parts
            var components = URLComponents(string: "https://api.example.test/")!
            components.path = "/" + path
            guard let url = components.url else { return }
            var request = QueuedRequest(
                method: method, url: url, headers: Headers(fields), body: body.map { .data(Data($0)) }, tag: tag, isOrdered: ordered,
                maximumAge: durations.0, timeout: durations.1
            )
            request.credentialHeaderNames = fields.map(\.0)
            request.hadClientCredentials = ordered
            let decoded = try JSONDecoder().decode(QueuedRequest.self, from: JSONEncoder().encode(request))
            #expect(decoded == request)
        }
    }

    @Test("planning over records with any dates, extreme or not a number, never traps, and the wait it asks for is never negative")
    func planning() async {
        // Infinities, NaN, the largest double, 2^63, zero and the smallest subnormal.
        let patterns: [UInt64] = [0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000, 0x7FF8_0000_0000_0000, 0x7FEF_FFFF_FFFF_FFFF, 0x43E0_0000_0000_0000, 0, 1]
        let bits = Gen<Int>.value(in: 0...6).map { patterns[$0] }
        let date = zip(bits, Gen<Double>.double(in: -1e13...1e13), Gen<Int>.value(in: 0...3)).map { bits, seconds, choice in
            choice == 0 ? Date(timeIntervalSince1970: Double(bitPattern: bits)) : Self.now.addingTimeInterval(seconds / Double(choice * choice))
        }
        let state = Gen<Int>.value(in: 0...QueueRecord.State.allCases.count - 1).map { QueueRecord.State.allCases[$0] }
        let slot = zip(zip(Gen<Int>.value(in: 0...2), Gen<Bool>.bool), state, zip(date, date.optional))
            .map { origin, state, dates in (origin: "https://o\(origin.0).test", ordered: origin.1, state: state, dates: dates) }
        await propertyCheck(count: Property.cases(1500), input: slot.array(of: 0...8), zip(date, date).array(of: 0...2)) { generated, probes in
            // Record ids are unique in the database.
            // Every other record holds a lease ending at its next attempt time, by a worker that
            // is gone when its index is a multiple of four.
            let slots = generated.enumerated().map { index, slot in
                QueuePlanner.Slot(
                    id: "r\(index)", origin: slot.origin, isOrdered: slot.ordered, state: slot.state, nextAttemptAt: slot.dates.0, expiresAt: slot.dates.1,
                    lease: index % 2 == 0 ? QueueLease(holder: "w\(index % 4)", expiresAt: slot.dates.0) : nil
                )
            }
            let unreachable = Dictionary(probes.enumerated().map { ("https://o\($0.offset).test", $0.element.0) }, uniquingKeysWith: { first, _ in first })
            let plan = QueuePlanner.plan(
                slots, now: Self.now, sending: ["r1"], unreachable: unreachable, probing: ["https://o2.test"], isGone: { $0 == "w0" }
            )
            #expect(Set(plan.expire).isDisjoint(with: plan.send))
            #expect(!plan.send.contains("r1"))
            // Only pending records, and records in flight whose lease ended or whose holder is gone.
            let abandoned = { (slot: QueuePlanner.Slot) in
                slot.state == .inFlight && (slot.lease.map { !($0.expiresAt > Self.now) || $0.holder == "w0" } ?? true)
            }
            for id in plan.send { #expect(slots.contains { $0.id == id && ($0.state == .pending || abandoned($0)) }) }
            for id in plan.expire { #expect(slots.contains { $0.id == id && ($0.state == .pending || abandoned($0)) }) }
            #expect(Set(plan.goneHolders).isSubset(of: ["w0"]))
            if let wake = plan.wakeAt {
                let delay = QueuePlanner.delay(until: wake, now: Self.now)
                #expect(delay >= .zero && delay <= .seconds(QueuePlanner.longestWait))
            }
            for (first, second) in probes {
                #expect(QueuePlanner.delay(until: first, now: second) >= .zero)
            }
        }
    }

    @Test("a queue database whose rows hold any values reads as records or fails with a queue storage error")
    func damagedRows() async throws {
        try await withQueueFolder { path in try await Self.checkDamagedRows(path: path) }
    }

    private static func checkDamagedRows(path: String) async throws {
        let store = try await SQLiteQueueStore.open(path: path, logger: Logger(label: "courier.test.queue"))
        // Each case rewrites the table; waiting for the disk each time would only slow it down.
        _ = try await store.run("PRAGMA synchronous=OFF", action: "configured")
        // Values as SQL literals: numbers of any size (9e999 is infinity), text, blobs.
        let number = zip(Gen<Int>.value(in: 0...5), Gen<Double>.double(in: -1e15...1e15)).map { choice, value in
            ["\(value)", "9e999", "-9e999", "9223372036854775807", "'soon'", "\(Int64(value))"][choice]
        }
        let hostile = Property.hostile(Self.samples, favouring: "{}[]\":,0123456789")
        let blob = zip(hostile, Gen<Bool>.bool).map { text, asText in (asText ? "CAST(" : "") + Self.hex(text) + (asText ? " AS TEXT)" : "") }
        let state = Property.hostile(["pending", "in-flight", "delivered", "failed", "expired"], favouring: "pendigflr-").map { "CAST(\(Self.hex($0)) AS TEXT)" }
        let row = zip(zip(state, number, number), zip(number, number.optional), zip(blob, blob.optional))
        await propertyCheck(count: Property.cases(100), input: row.array(of: 1...3)) { rows in
            _ = try await store.run("DELETE FROM courier_queue", action: "cleared")
            for (index, values) in rows.enumerated() {
                let ((state, attempts, created), (next, expires), (request, outcome)) = values
                let literals = ["'id\(index)'", "'https://o.test'", "\(index % 2)", state, attempts, created, next, expires ?? "NULL", request, outcome ?? "NULL"]
                let sql =
                    "INSERT INTO courier_queue (id, origin, is_ordered, state, attempts, created_at, next_attempt_at, expires_at, request, outcome) VALUES ("
                    + literals.joined(separator: ", ") + ")"
                _ = try await store.run(sql, action: "written")
            }
            do {
                for record in try await store.allRecords() { Self.use(record.request) }
            } catch {
                #expect((error as? CourierError)?.kind == .queueStorage)
            }
            do {
                let slots = try await store.activeSlots()
                if let wake = QueuePlanner.plan(slots, now: Self.now, sending: [], unreachable: [:], probing: []).wakeAt {
                    #expect(QueuePlanner.delay(until: wake, now: Self.now) >= .zero)
                }
            } catch {
                #expect((error as? CourierError)?.kind == .queueStorage)
            }
        }
        await store.close()
    }

    /// `text`'s UTF-8 bytes as an SQL blob literal.
    static func hex(_ text: String) -> String {
        "X'" + text.utf8.map { String(format: "%02X", $0) }.joined() + "'"
    }

    /// Does with `request` what delivery does: reads its durations, makes its deadline and
    /// its HTTP request (unless its body is a file, which would be read).
    static func use(_ request: QueuedRequest) {
        if let maximumAge = request.maximumAge { _ = now.addingTimeInterval(maximumAge.timeInterval) }
        if let timeout = request.timeout {
            _ = ContinuousClock.now + timeout
            _ = timeout.nanoseconds
        }
        if case .file = request.body { return }
        let credentials = CredentialResolution(needed: request.credentialHeaderNames, held: Headers(), defaults: Headers(), clientHasCredentials: false)
        _ = try? request.httpRequest(maximumBodySize: 1 << 20, defaultTimeout: .seconds(30), credentials: credentials, sensitiveHeaders: [])
    }
}
