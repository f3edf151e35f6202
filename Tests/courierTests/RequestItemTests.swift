import Foundation
import Testing

@testable import courier

@Suite("Request items")
struct RequestItemTests {
    @Test(arguments: [
        ("X-Id:7", RequestItem.Kind.header, "X-Id", "7"),
        ("X-Id:  7 ", .header, "X-Id", "7"),
        ("Header:value=x", .header, "Header", "value=x"),
        ("Accept:", .removedHeader, "Accept", ""),
        ("X-Empty;", .emptyHeader, "X-Empty", ""),
        ("q==1", .query, "q", "1"),
        ("q==a b&c=d", .query, "q", "a b&c=d"),
        ("url==http://x.example/?a=b", .query, "url", "http://x.example/?a=b"),
        ("q==", .query, "q", ""),
        ("name=ada", .string, "name", "ada"),
        ("email=ada@x.example", .string, "email", "ada@x.example"),
        ("note=a:b;c", .string, "note", "a:b;c"),
        ("name=", .string, "name", ""),
        ("age:=36", .json, "age", "36"),
        ("tags:=[1, \"two\", null]", .json, "tags", "[1, \"two\", null]"),
        ("on:=true", .json, "on", "true"),
        ("avatar@/tmp/a.png", .file, "avatar", "/tmp/a.png"),
        ("bio=@/tmp/bio.txt", .stringFile, "bio", "/tmp/bio.txt"),
        ("meta:=@/tmp/m.json", .jsonFile, "meta", "/tmp/m.json"),
        ("a\\:b=c", .string, "a:b", "c"),
        ("a\\=b=c", .string, "a=b", "c"),
        ("a=b\\=c", .string, "a", "b=c"),
        ("a\\@b@f", .file, "a@b", "f"),
        ("X\\;Y=1", .string, "X;Y", "1"),
        ("path=C:\\dir", .string, "path", "C:\\dir"),
        ("trailing=x\\", .string, "trailing", "x\\"),
        ("a\\[b]=c", .string, "a\\[b]", "c"),
    ])
    func itemsParse(text: String, kind: RequestItem.Kind, name: String, value: String) throws {
        let item = try RequestItem(text)
        #expect(item.kind == kind)
        #expect(item.name == name)
        #expect(item.value == value)
    }

    @Test func aFileItemMayNameItsType() throws {
        let item = try RequestItem("doc@/tmp/report.bin;type=application/pdf")
        #expect(item.kind == .file)
        #expect(item.value == "/tmp/report.bin")
        #expect(item.contentType == "application/pdf")
    }

    @Test func aPathMayStartAtTheHomeFolder() throws {
        let home = NSString(string: "~").expandingTildeInPath
        #expect(try RequestItem("avatar@~/a.png").value == home + "/a.png")
        #expect(try RequestItem("bio=@~/b.txt").value == home + "/b.txt")
        #expect(try RequestItem("note=~/c").value == "~/c")
    }

    @Test(arguments: [
        ("", "is not a request item"),
        ("plain", "is not a request item"),
        ("\\=escaped-only", "is not a request item"),
        ("=", "has no name"),
        ("==", "has no name"),
        (":=", "has no name"),
        (":=@", "has no name"),
        ("@", "has no name"),
        (":", "has no name"),
        (";", "has no name"),
        ("=value", "has no name"),
        (":value", "has no name"),
        ("a:=nope", "not valid JSON"),
        ("a:={\"b\":", "not valid JSON"),
        ("a:=1 2", "not valid JSON"),
        ("a:=", "not valid JSON"),
        ("X-A;x", "for an empty header give Name;"),
        ("X A:1", "a header name is"),
        ("X-\u{e9}:1", "a header name is"),
        ("X-A:a\u{7}b", "control character"),
        ("X-A:a\r\nX-Injected: 1", "control character"),
        ("X-A:\u{0}", "control character"),
        ("X-A:\u{7f}", "control character"),
        ("f@", "has no path"),
        ("f=@", "has no path"),
        ("f:=@", "has no path"),
        ("f@x;type=bad", "MIME type"),
    ])
    func badItemsAreInvalidInput(text: String, reason: String) {
        #expect {
            try RequestItem(text)
        } throws: { error in
            guard let failure = error as? CommandFailure else { return false }
            return failure.status == .invalidInput && failure.message.contains(reason)
        }
    }

    @Test func aRefusedItemIsNamedShortAndPrintable() throws {
        let text = "X-Long:" + String(repeating: "v", count: 200_000) + "\u{1b}[31m"
        let failure = try #require(throws: CommandFailure.self) { try RequestItem(text) }
        #expect(failure.message.contains("'X-Long:vvv"))
        #expect(failure.message.count < 300)
        #expect(!failure.message.unicodeScalars.contains { $0.value < 0x20 })
        let control = try #require(throws: CommandFailure.self) { try RequestItem("X-A:\u{1b}]0;title\u{7}") }
        #expect(!control.message.unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test func hugeValuesParseWhole() throws {
        let value = String(repeating: "a=b:c@", count: 200_000)
        let item = try RequestItem("big=" + value)
        #expect(item.kind == .string)
        #expect(item.value == value)
    }

    @Test func deeplyNestedJSONIsAnsweredNotCrashedOn() {
        let depth = 100_000
        let text = "a:=" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(throws: CommandFailure.self) { try RequestItem(text) }
    }
}
