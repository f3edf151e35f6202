import Foundation
import Testing

@testable import Courier

/// A character may join a separator to a mark beside it (U+0301 after it, U+0605 before it);
/// lists and parameters are split at the separator scalars all the same.
@Suite("Field lists split at separator scalars, not characters")
struct FieldListTests {
    @Test("a comma joined to a mark still ends an element")
    func commaJoinedToAMark() {
        #expect(FieldList.elements("gzip,\u{301}br") == ["gzip", "\u{301}br"])
        #expect(FieldList.elements("a\u{605}, b ,, c") == ["a\u{605}", "b", "c"])
        #expect(Storability.varyNames(Headers([("Vary", "Accept\u{605},\u{12}Cookie")])) == ["accept\u{605}", "\u{12}cookie"])
    }

    @Test("Cache-Control and Set-Cookie split at the scalars too")
    func directivesAndAttributes() throws {
        let control = CacheControl(fieldValue: "no-store,\u{301}max-age=5")
        #expect(control.directives.map(\.name) == ["no-store", "\u{301}max-age"])
        let cookie = try #require(SetCookie("id=1;\u{301} Secure; HttpOnly"))
        #expect(cookie.value == "1")
        #expect(cookie.isHTTPOnly)
    }
}
