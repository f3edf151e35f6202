import Foundation
import Logging
import Testing

@testable import Courier
@testable import CourierQueue

/// The inputs with which the property suites found bugs, kept as plain cases.
@Suite("Property regressions")
struct PropertyRegressionTests {
    @Test(arguments: [
        (-62_135_596_800.0, "Mon, 01 Jan 0001 00:00:00 GMT"),
        (-30_610_224_001.0, " Dec 0999 23:59:59 GMT"),
        (-59_011_459_200.0, " Jan 0100 00:00:00 GMT"),
    ])
    func anHTTPDateBeforeYear1000HasAFourDigitYearAndParsesBack(seconds: Double, text: String) {
        let date = Date(timeIntervalSince1970: seconds)
        let formatted = HTTPDate.format(date)
        #expect(formatted.hasSuffix(text))
        #expect(formatted.utf8.count == 29)
        #expect(HTTPDate.parse(formatted) == date)
    }

    @Test func aRangeOfEveryInt64PositionIsComparedWithContentLengthWithoutOverflow() {
        let decision = ResumeDecision.evaluate(
            status: 206, contentRange: "bytes 0-9223372036854775807/*", contentLength: 5, isEncoded: false, offset: 0, expectedTotal: nil
        )
        guard case .reject = decision else {
            Issue.record("expected a rejection, got \(decision)")
            return
        }
        let negative = ResumeDecision.evaluate(
            status: 206, contentRange: "bytes 0-9/*", contentLength: Int64.min, isEncoded: false, offset: 0, expectedTotal: nil
        )
        guard case .reject = negative else {
            Issue.record("expected a rejection, got \(negative)")
            return
        }
    }

    @Test(arguments: [
        (".\u{301}x", "x"),
        ("..\u{301}", nil),
        ("../\u{301}etc", "\u{301}etc"),
        ("a\\\u{301}b", "\u{301}b"),
    ])
    func aSeparatorOrDotWithACombiningMarkStillCounts(suggested: String, expected: String?) {
        let name = try? DownloadFileName.sanitized(suggested)
        #expect(name == expected)
    }

    @Test(arguments: [
        ("attachment; filename=\"\u{200C}a\"", "\u{200C}a"),
        ("attachment; filename=\"\u{301}x\"; size=1", "\u{301}x"),
        ("attachment; filename=\"a\\\u{301}\"", "a\u{301}"),
    ])
    func aQuoteOrSeparatorWithACombiningMarkStillCounts(field: String, expected: String?) {
        #expect(ContentDisposition.fileName(in: field) == expected)
    }

    @Test func aParameterAfterAToken68IsNotPartOfItsChallenge() {
        let challenges = Challenge.parse(["Basic abc==, realm=x, Digest realm=y, nonce=z"])
        #expect(
            challenges == [
                Challenge(scheme: "basic", token68: "abc=="),
                Challenge(scheme: "digest", parameters: ["realm": "y", "nonce": "z"]),
            ])
    }

    @Test func aFarQueueDateIsALongFiniteWait() {
        let now = Date(timeIntervalSince1970: 1_795_219_200)
        // What enqueue writes for maximumAge: .seconds(Int64.max).
        let far = now.addingTimeInterval(Duration.seconds(Int64.max).timeInterval)
        #expect(QueuePlanner.delay(until: far, now: now) == .seconds(QueuePlanner.longestWait))
        #expect(QueuePlanner.delay(until: Date(timeIntervalSince1970: .infinity), now: now) == .seconds(QueuePlanner.longestWait))
        #expect(QueuePlanner.delay(until: Date(timeIntervalSince1970: .nan), now: now) == .zero)
        #expect(QueuePlanner.delay(until: now.addingTimeInterval(-5), now: now) == .zero)
        #expect(QueuePlanner.delay(until: now.addingTimeInterval(1.5), now: now) == .milliseconds(1500))
    }

    @Test func aRecordedDurationBeyondInt64SecondsIsSaturated() throws {
        let text = #"{"method":"GET","url":"https://a.test/","headers":[],"idempotencyKey":"k","isOrdered":false,"timeout":[9223372036854775807,0],"maximumAge":[-9223372036854775808,0]}"#
        let request = try JSONDecoder().decode(QueuedRequest.self, from: Data(text.utf8))
        #expect(request.timeout == .seconds(Int64.max))
        #expect(request.maximumAge == .seconds(Int64.min))
        #expect(request.timeout?.components.seconds == Int64.max)
    }

    @Test func aQueueRowWithAnInfiniteCountIsAStorageErrorNotATrap() async throws {
        try await withQueueFolder { path in try await Self.checkInfiniteCount(path: path) }
    }

    private static func checkInfiniteCount(path: String) async throws {
        let store = try await SQLiteQueueStore.open(path: path, logger: Logger(label: "courier.test.queue"))
        let request = QueueRecordPropertyTests.hex(QueueRecordPropertyTests.samples[0])
        _ = try await store.run(
            "INSERT INTO courier_queue (id, origin, is_ordered, state, attempts, created_at, next_attempt_at, request) VALUES ('a', 'https://o.test', 9e999, 'pending', 9e999, 0, 0, \(request))",
            action: "written"
        )
        var kinds: [CourierError.Kind] = []
        do throws(CourierError) { _ = try await store.allRecords() } catch { kinds.append(error.kind) }
        do throws(CourierError) { _ = try await store.activeSlots() } catch { kinds.append(error.kind) }
        await store.close()
        #expect(kinds == [.queueStorage, .queueStorage])
    }

    /// A name cut to 255 bytes just after an invisible space lost that space when it was made
    /// safe a second time.
    @Test func aNameCutAfterAnInvisibleSpaceIsTheSameWhenMadeSafeAgain() throws {
        let long = String(repeating: "÷Ï🙏τ1Fe丽tO\u{200B}I\u{0336}\u{031E}", count: 12)
        let once = try DownloadFileName.sanitized(long)
        #expect(once.utf8.count <= 255)
        #expect(try DownloadFileName.sanitized(once) == once)
    }
}
