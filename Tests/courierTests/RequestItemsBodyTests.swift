import Courier
import Foundation
import Testing

@testable import courier

@Suite("Request items: bodies")
struct RequestItemsBodyTests {
    private func items(_ texts: String..., form: Bool = false) throws -> RequestItems {
        try RequestItems(texts, form: form, json: false, multipart: false)
    }

    @Test func fieldsMakeOneJSONObjectInTheOrderGiven() throws {
        let text = try RequestItems.jsonObject(items("name=ada", "age:=36", "X-Id:7", "tags:= [1,2] ", "q==1", "name=grace").items.filter { $0.kind.isData })
        #expect(text == "{\"name\":\"grace\",\"age\":36,\"tags\":[1,2]}")
    }

    @Test func stringsAreEscapedAsJSON() throws {
        let text = try RequestItems.jsonObject(items("quote\\:d=say \"hi\"\n\u{1}").items)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(object == ["quote:d": "say \"hi\"\n\u{1}"])
    }

    @Test(arguments: ["a[b]=c", "a[]:=1", "[]=x", "a]=x"])
    func nestedPathsAreRefusedInJSON(text: String) throws {
        let parsed = try items(text)
        let failure = try #require(throws: CommandFailure.self) { try RequestItems.jsonObject(parsed.items) }
        #expect(failure.status == .invalidInput)
        #expect(failure.message.contains("nested JSON paths"))
    }

    @Test func escapedBracketsAreAKey() throws {
        #expect(try RequestItems.jsonObject(items("a\\[b\\]=c").items) == "{\"a[b]\":\"c\"}")
    }

    @Test func aFormKeepsBracketsAndRefusesJSON() throws {
        #expect(try items("a[b]=c", form: true).encoding == .form)
        #expect(try items("a[b]=c", form: true).body() != nil)
        let failure = try #require(throws: CommandFailure.self) { try items("n:=1", form: true).body() }
        #expect(failure.message.contains("is JSON"))
    }

    @Test func theEncodingFollowsTheFlagsAndFileItems() throws {
        #expect(try items("a=1").encoding == .json)
        #expect(try items("a=1", form: true).encoding == .form)
        #expect(try items("a=1", "f@/tmp/x").encoding == .multipart)
        #expect(try RequestItems(["a=1"], form: false, json: false, multipart: true).encoding == .multipart)
        #expect(throws: CommandFailure.self) { try RequestItems([], form: true, json: true, multipart: false) }
    }

    @Test func onlyFieldsGiveABody() throws {
        #expect(try items("X-A:1", "q==2", "Accept:").givesBody == false)
        #expect(try items("X-A:1", "a=2").givesBody)
        #expect(try items("X-A:1").body() == nil)
    }
}
