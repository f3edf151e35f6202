import Foundation
import Testing

@testable import Courier

@Suite("Parameter encoding (bracket convention)")
struct ParameterEncodingTests {
    private static let base = UnitSupport.url("https://api.example.com/v1")

    /// Flattens, then writes pairs the way a query string does.
    private func queryString(_ parameters: CourierParameters) throws -> String {
        let url = try URLBuilder.url(
            path: "/search", base: Self.base,
            queryPairs: parameters.flattenedPairs.map { ($0.0, Optional($0.1)) }
        )
        return try #require(url.query(percentEncoded: true))
    }

    private func formString(_ parameters: CourierParameters) throws -> String {
        try #require(UnitSupport.text(of: CourierRequestBody.form(parameters)))
    }

    // MARK: Flattening

    @Test(
        "Scalars flatten to one pair",
        arguments: [
            (ParameterValue.string("x y"), "x y"),
            (.int(42), "42"),
            (.int(-7), "-7"),
            (.double(1.5), "1.5"),
            (.double(-0.25), "-0.25"),
            (.bool(true), "true"),
            (.bool(false), "false"),
            (.null, ""),
            (.string(""), ""),
        ]
    )
    func scalars(value: ParameterValue, expected: String) {
        let pairs = value.flattened(name: "k")
        #expect(pairs.count == 1)
        #expect(pairs.first?.0 == "k")
        #expect(pairs.first?.1 == expected)
    }

    @Test("Arrays repeat the name with []")
    func arrays() {
        let pairs = ParameterValue.array([1, 2, "three"]).flattened(name: "a")
        #expect(pairs.map(\.0) == ["a[]", "a[]", "a[]"])
        #expect(pairs.map(\.1) == ["1", "2", "three"])
    }

    @Test("Nested dictionaries are written in ascending key order at every level")
    func nestedDictionaries() {
        let user: ParameterValue = [
            "name": "Ada",
            "address": ["zip": "0150", "city": "Oslo"],
            "age": 36,
        ]
        let pairs = user.flattened(name: "user")
        #expect(pairs.map(\.0) == ["user[address][city]", "user[address][zip]", "user[age]", "user[name]"])
        #expect(pairs.map(\.1) == ["Oslo", "0150", "36", "Ada"])
    }

    @Test("Arrays of dictionaries and dictionaries of arrays")
    func mixedNesting() {
        let value: ParameterValue = ["tags": ["a", "b"], "items": [["id": 1], ["id": 2]]]
        let pairs = value.flattened(name: "p")
        #expect(pairs.map(\.0) == ["p[items][][id]", "p[items][][id]", "p[tags][]", "p[tags][]"])
        #expect(pairs.map(\.1) == ["1", "2", "a", "b"])
    }

    @Test("Top-level parameters are written in ascending key order")
    func topLevelOrder() {
        let parameters: CourierParameters = ["zeta": 1, "alpha": 2, "Mid": 3, "beta": [4]]
        #expect(parameters.flattenedPairs.map(\.0) == ["Mid", "alpha", "beta[]", "zeta"])
    }

    @Test("Flattening is deterministic: the same parameters always give the same pairs")
    func deterministic() {
        let parameters: CourierParameters = ["b": ["y": 1, "x": 2, "z": 3], "a": [true, false, nil], "c": 0.5]
        let first = parameters.flattenedPairs.map { "\($0.0)=\($0.1)" }
        for _ in 0..<20 {
            #expect(parameters.flattenedPairs.map { "\($0.0)=\($0.1)" } == first)
        }
        #expect(first == ["a[]=true", "a[]=false", "a[]=", "b[x]=2", "b[y]=1", "b[z]=3", "c=0.5"])
    }

    // MARK: Through URLBuilder (query strings)

    @Test(
        "Query strings byte for byte",
        arguments: [
            (["q": "swift"], "q=swift"),
            (["q": "a b&c=d"], "q=a%20b%26c%3Dd"),
            (["flag": true, "off": false], "flag=true&off=false"),
            (["empty": nil], "empty="),
            (["pi": 3.25], "pi=3.25"),
            (["n": 10], "n=10"),
            (["a": [1, 2]], "a%5B%5D=1&a%5B%5D=2"),
            (["user": ["address": ["city": "Oslo"]]], "user%5Baddress%5D%5Bcity%5D=Oslo"),
            (["b": 2, "a": 1, "c": 3], "a=1&b=2&c=3"),
            (["name": "é"], "name=%C3%A9"),
            (["k+y": "v/w"], "k%2By=v%2Fw"),
        ] as [(CourierParameters, String)]
    )
    func queryStrings(parameters: CourierParameters, expected: String) throws {
        #expect(try queryString(parameters) == expected)
    }

    @Test("Parameters come after the path's own query and the base query")
    func parametersAfterExistingQuery() throws {
        let base = UnitSupport.url("https://api.example.com/v1?key=k1")
        let url = try URLBuilder.url(
            path: "/search?lang=en", base: base,
            queryPairs: (["b": 2, "a": [1]] as CourierParameters).flattenedPairs.map { ($0.0, Optional($0.1)) }
        )
        #expect(url.absoluteString == "https://api.example.com/v1/search?key=k1&lang=en&a%5B%5D=1&b=2")
    }

    @Test("Query items with and without values")
    func queryItemsWithoutValue() throws {
        let url = try URLBuilder.url(path: "/x", base: Self.base, queryPairs: [("flag", nil), ("k", "v"), ("e", "")])
        #expect(url.absoluteString == "https://api.example.com/v1/x?flag&k=v&e=")
    }

    // MARK: Through CourierRequestBody.form

    @Test(
        "Form bodies byte for byte",
        arguments: [
            (["q": "a b"], "q=a+b"),
            (["flag": true, "off": false], "flag=true&off=false"),
            (["empty": nil], "empty="),
            (["pi": 3.25], "pi=3.25"),
            (["a": [1, 2]], "a%5B%5D=1&a%5B%5D=2"),
            (["user": ["name": "Ada", "address": ["city": "Oslo"]]], "user%5Baddress%5D%5Bcity%5D=Oslo&user%5Bname%5D=Ada"),
            (["z": 1, "a": 2], "a=2&z=1"),
            (["t": "~*"], "t=%7E*"),
        ] as [(CourierParameters, String)]
    )
    func formBodies(parameters: CourierParameters, expected: String) throws {
        #expect(try formString(parameters) == expected)
    }

    @Test("A form body from parameters is application/x-www-form-urlencoded with a known length")
    func formBodyMetadata() throws {
        let body = CourierRequestBody.form(["a": [1, 2], "b": "x y"])
        let bytes = try #require(body.bytes)
        #expect(body.contentType == "application/x-www-form-urlencoded")
        #expect(body.length == Int64(bytes.count))
        #expect(String(decoding: bytes, as: UTF8.self) == "a%5B%5D=1&a%5B%5D=2&b=x+y")
    }

    @Test("Empty parameters give an empty form body")
    func emptyForm() throws {
        let body = CourierRequestBody.form([:] as CourierParameters)
        #expect(try #require(body.bytes).isEmpty)
        #expect(body.length == 0)
    }

    // MARK: Literals

    @Test("Literals build the expected cases")
    func literals() {
        let string: ParameterValue = "s"
        let int: ParameterValue = 1
        let double: ParameterValue = 1.5
        let bool: ParameterValue = true
        let null: ParameterValue = nil
        let array: ParameterValue = [1, "a"]
        let dictionary: ParameterValue = ["k": 1, "k2": "v"]
        #expect(string == .string("s"))
        #expect(int == .int(1))
        #expect(double == .double(1.5))
        #expect(bool == .bool(true))
        #expect(null == .null)
        #expect(array == .array([.int(1), .string("a")]))
        #expect(dictionary == .dictionary(["k": .int(1), "k2": .string("v")]))
    }
}
