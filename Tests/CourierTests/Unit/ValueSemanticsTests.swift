import Foundation
import Testing

@testable import Courier

/// Responses and requests share their fields between copies; a change to one copy must never
/// show in another, whichever copy changes and from whichever task.
@Suite("Value semantics of Response and HTTPRequest")
struct ValueSemanticsTests {
    @Test func changingACopyOfAResponseLeavesTheOriginalAlone() {
        let original = CourierResponse(status: 200, headers: ["A": "1"], body: Data("body".utf8), url: UnitSupport.url("http://a.example/x"))
        var copy = original
        copy.status = 404
        copy.headers.add(name: "B", value: "2")
        copy.body.append(contentsOf: [0x21])
        copy.redirects.append(RedirectHop(status: 301, from: copy.url, to: UnitSupport.url("http://b.example/")))
        #expect(original.status == 200)
        #expect(original.headers.count == 1)
        #expect(original.body == Data("body".utf8))
        #expect(original.redirects.isEmpty)
        #expect(copy.status == 404 && copy.headers["B"] == "2" && copy.body == Data("body!".utf8) && copy.redirects.count == 1)
    }

    @Test func changingTheOriginalLeavesACopyAlone() {
        var original = CourierHTTPRequest(method: .get, url: UnitSupport.url("http://a.example/x"), headers: ["A": "1"])
        let copy = original
        original.method = .post
        original.headers.set(name: "A", value: "2")
        original.url = UnitSupport.url("http://b.example/y")
        #expect(copy.method == .get && copy.headers["A"] == "1" && copy.url.host == "a.example")
        #expect(original.method == .post && original.headers["A"] == "2" && original.url.host == "b.example")
        #expect(copy.id == original.id)
    }

    @Test func copiesChangedConcurrentlyStayIndependent() async {
        let shared = CourierHTTPRequest(method: .get, url: UnitSupport.url("http://a.example/x"))
        let results = await withTaskGroup(of: (Int, CourierHTTPRequest).self) { group in
            for index in 0..<64 {
                group.addTask {
                    var mine = shared
                    mine.headers.add(name: "X-Index", value: String(index))
                    mine.tag = index
                    return (index, mine)
                }
            }
            var results: [(Int, CourierHTTPRequest)] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(results.count == 64)
        for (index, request) in results {
            #expect(request.tag == index && request.headers.values(for: "X-Index") == [String(index)])
        }
        #expect(shared.headers.isEmpty && shared.tag == nil)
    }
}
