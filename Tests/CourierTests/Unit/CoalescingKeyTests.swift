import Foundation
import Testing

@testable import Courier

@Suite("Coalescing keys: identical requests share one, any difference keeps them apart")
struct CoalescingKeyTests {
    private func request(_ url: String = "https://api.example.com/items?page=2") throws -> CourierHTTPRequest {
        CourierHTTPRequest(method: .get, url: try #require(URL(string: url)), headers: ["Accept": "application/json"])
    }

    @Test func identicalRequestsHaveEqualKeysAndFindEachOther() throws {
        let first = try #require(CoalescingKey(try request()))
        let second = try #require(CoalescingKey(try request()))
        #expect(first == second)
        #expect([first: 1][second] == 1)
    }

    @Test("a request that differs in anything that shapes the exchange has a key of its own, in a dictionary too")
    func anyDifferenceSeparates() throws {
        let base = try #require(CoalescingKey(try request()))
        var variants: [CourierHTTPRequest] = []
        var header = try request()
        header.headers.add(name: "X-Tenant", value: "b")
        variants.append(header)
        var value = try request()
        value.headers.set(name: "Accept", value: "text/plain")
        variants.append(value)
        var limit = try request()
        limit.maximumBodySize = 10
        variants.append(limit)
        var timeout = try request()
        timeout.timeout = .seconds(3)
        variants.append(timeout)
        var sensitive = try request()
        sensitive.sensitiveHeaders = ["Accept"]
        variants.append(sensitive)
        var redirects = try request()
        redirects.redirectPolicy = RedirectPolicy.none
        variants.append(redirects)
        var head = try request()
        head.method = .head
        variants.append(head)
        variants.append(try request("https://api.example.com/items?page=3"))
        var keys: [CoalescingKey: Int] = [base: -1]
        for (index, variant) in variants.enumerated() {
            let key = try #require(CoalescingKey(variant))
            #expect(key != base, "variant \(index)")
            #expect(keys[key] == nil, "variant \(index)")
            keys[key] = index
        }
        #expect(keys.count == variants.count + 1)
    }

    @Test func requestsThatMayNotShareHaveNoKey() throws {
        var post = try request()
        post.method = .post
        #expect(CoalescingKey(post) == nil)
        var optedOut = try request()
        optedOut.allowsCoalescing = false
        #expect(CoalescingKey(optedOut) == nil)
    }
}
