import Foundation
import Testing

@testable import Courier

@Suite("Public Suffix List")
struct PublicSuffixListTests {
    static let list = PublicSuffixList.mozilla

    @Test(arguments: [
        ("com", "com"), ("example.com", "com"), ("www.example.com", "com"),
        ("example.co.uk", "co.uk"), ("a.b.example.co.uk", "co.uk"),
        ("ada.github.io", "github.io"),
        ("www.foo.ck", "foo.ck"), ("www.ck", "ck"), ("a.www.ck", "ck"),
        ("example.unknowntld", "unknowntld"), ("EXAMPLE.COM.", "com"),
    ])
    func publicSuffix(_ host: String, _ expected: String) {
        #expect(PublicSuffixListTests.list.publicSuffix(of: host) == expected)
    }

    @Test(arguments: [
        ("www.example.co.uk", "example.co.uk"), ("example.com", "example.com"), ("a.www.ck", "www.ck"),
        ("ada.github.io", "ada.github.io"),
    ])
    func registrableDomain(_ host: String, _ expected: String) {
        #expect(PublicSuffixListTests.list.registrableDomain(of: host) == expected)
    }

    @Test func publicSuffixesHaveNoRegistrableDomain() {
        for suffix in ["com", "co.uk", "github.io", "foo.ck"] {
            #expect(PublicSuffixListTests.list.isPublicSuffix(suffix), "\(suffix)")
            #expect(PublicSuffixListTests.list.registrableDomain(of: suffix) == nil, "\(suffix)")
        }
        #expect(!PublicSuffixListTests.list.isPublicSuffix("example.com"))
        #expect(!PublicSuffixListTests.list.isPublicSuffix("www.ck"))
        #expect(PublicSuffixListTests.list.publicSuffix(of: "a..com") == nil)
        #expect(PublicSuffixListTests.list.publicSuffix(of: "") == nil)
    }

    @Test func internationalNamesAreStoredInTheirASCIIForm() {
        // 公司.cn and 政府.hk are listed in Unicode; URLs carry them as xn-- labels.
        #expect(PublicSuffixListTests.list.isPublicSuffix("xn--55qx5d.cn"))
        #expect(PublicSuffixListTests.list.publicSuffix(of: "example.xn--55qx5d.cn") == "xn--55qx5d.cn")
    }

    @Test func theEmbeddedListIsComplete() {
        let tokens = PublicSuffixList.mozillaRules.split(whereSeparator: \.isWhitespace)
        #expect(tokens.count == PublicSuffixList.mozillaRuleCount)
        #expect(PublicSuffixList.mozillaSourceDigest.count == 64)
    }

    @Test func customRulesUseTheSameAlgorithm() {
        let list = PublicSuffixList(rules: "// a comment\nexample\n*.wild.example\n!keep.wild.example\n")
        #expect(list.publicSuffix(of: "a.b.wild.example") == "b.wild.example")
        #expect(list.publicSuffix(of: "x.keep.wild.example") == "wild.example")
        #expect(list.publicSuffix(of: "site.example") == "example")
    }
}
