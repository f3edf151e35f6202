import Foundation
import Testing

/// Keeps the ecosystem-imports sample complete: `.ci/run` builds it, and its files name every
/// public type of Courier's library products without a module qualifier beside Vapor, Fluent,
/// Hummingbird, NIOHTTP1, swift-http-types, gRPC and the OpenAPI transports, so a new public type that clashes with one of
/// theirs fails the build. These tests fail when a public type is missing from that list.
@Suite("Public type names")
struct PublicNamesTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized
    /// The library products' source folders; CourierDemoServer's types reach users through
    /// CourierTesting, which re-exports it.
    private static let products = [
        "Courier", "CourierCachePostgres", "CourierDemoServer", "CourierImages", "CourierLifecycle", "CourierLimitsPostgres",
        "CourierOpenAPI", "CourierQueue",
        "CourierServerSentEvents",
        "CourierTesting", "CourierURLSession", "CourierWebSockets", "CourierXML",
    ]
    private static let sample = root.appendingPathComponent("Tests/Packages/EcosystemImports/Sources")
    private static let renamed = root.appendingPathComponent("Sources/Courier/Compatibility/RenamedTypes.swift")

    @Test func theSampleNamesEveryPublicType() throws {
        let names = try Self.publicTypeNames()
        #expect(names.count > 100, "the scan found \(names.count) public types; it no longer reads the sources")
        let files = try Self.swiftFiles(under: Self.sample)
        #expect(files.count == 2, "one file a framework: \(files.map(\.lastPathComponent))")
        for file in files {
            let listed = try Self.listedNames(in: file)
            #expect(listed == names, "\(file.lastPathComponent): missing \(names.subtracting(listed).sorted()), stale \(listed.subtracting(names).sorted())")
        }
    }

    @Test func everyEarlierNameIsKeptBothWays() throws {
        let text = try String(contentsOf: Self.renamed, encoding: .utf8)
        let names = try Self.publicTypeNames()
        var unavailable: [String: String] = [:]
        var deprecated: [String: String] = [:]
        var attribute = ""
        for line in text.split(separator: "\n") {
            if line.hasPrefix("@available") { attribute = String(line) }
            guard let match = line.firstMatch(of: #/^public typealias (\w+) = (\w+)$/#) else { continue }
            let (old, new) = (String(match.1), String(match.2))
            #expect(attribute.contains("renamed: \"\(new)\""), "\(old) names \(new) as its replacement")
            if attribute.contains("unavailable") { unavailable[old] = new } else if attribute.contains("deprecated") { deprecated[old] = new }
        }
        #expect(unavailable.count == 13)
        #expect(unavailable == deprecated, "each earlier name is unavailable by default and deprecated with the trait")
        for (old, new) in unavailable {
            #expect(!names.contains(old), "\(old) is still a public type")
            #expect(names.contains(new), "\(old) points at \(new), which is not a public type")
        }
    }

    /// The names of the top-level public types declared in the library products' sources,
    /// without the earlier names kept as unavailable or deprecated aliases.
    private static func publicTypeNames() throws -> Set<String> {
        var names: Set<String> = []
        for product in products {
            for file in try swiftFiles(under: root.appendingPathComponent("Sources/\(product)")) {
                var attributes = ""
                for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("@") && !line.contains(" public ") {
                        attributes += line
                        continue
                    }
                    defer { attributes = "" }
                    let declaration = #/^(?:@\w+(?:\([^)]*\))? )*public (?:final |indirect )?(?:class|struct|enum|protocol|actor|typealias) (\w+)/#
                    guard let match = line.firstMatch(of: declaration) else { continue }
                    if attributes.contains("unavailable") || attributes.contains("deprecated") { continue }
                    names.insert(String(match.1))
                }
            }
        }
        return names
    }

    /// The names a sample file refers to, one `private typealias Unqualified<Name> = <Name>` a line.
    private static func listedNames(in file: URL) throws -> Set<String> {
        let text = try String(contentsOf: file, encoding: .utf8)
        return Set(text.split(separator: "\n").compactMap { $0.firstMatch(of: #/^private typealias Unqualified\w+ = (\w+)$/#).map { String($0.1) } })
    }

    private static func swiftFiles(under folder: URL) throws -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
    }
}
