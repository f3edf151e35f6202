import Testing

@testable import Courier

@Suite("Exchange marker")
struct ExchangeMarkerTests {
    typealias Marker = ExchangeRelay.Marker

    @Test(arguments: [
        Marker(number: 1, streamsBody: false, sendsTrailers: false, streamsResponse: false),
        Marker(number: 42, streamsBody: true, sendsTrailers: false, streamsResponse: false),
        Marker(number: 7, streamsBody: false, sendsTrailers: true, streamsResponse: true),
        Marker(number: .max, streamsBody: true, sendsTrailers: true, streamsResponse: true),
    ])
    func aMarkerReadsBackAsWritten(_ marker: Marker) {
        #expect(Marker(marker.value) == marker)
    }

    @Test func theNumberEndsAtTheFirstOtherByteAndTheFlagsMayComeInAnyOrder() {
        #expect(Marker("12rs") == Marker(number: 12, streamsBody: true, sendsTrailers: false, streamsResponse: true))
        // A digit among the flags is not part of the number.
        #expect(Marker("12x3t") == Marker(number: 12, streamsBody: false, sendsTrailers: true, streamsResponse: false))
    }

    @Test(arguments: ["", "s12", "-1", " 12", "18446744073709551616", "99999999999999999999t", "٣"])
    func aValueTheTransportDidNotWriteIsNoMarker(_ value: String) {
        #expect(Marker(value) == nil)
    }
}
