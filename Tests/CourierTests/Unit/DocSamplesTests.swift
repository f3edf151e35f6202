import Foundation
import Testing

/// Keeps the DocSamples package in step with the documentation: `.ci/run` builds that package,
/// whose `Samples/` files hold every Swift sample of the DocC catalogs and of the documentation
/// comments (written there by scripts/doc-samples.py). These tests fail when a sample was changed
/// or added without running the script, so that no sample escapes the build.
@Suite("Documentation samples")
struct DocSamplesTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized
    private static let samples = root.appendingPathComponent("Tests/Packages/DocSamples/Sources/DocSamples/Samples")

    @Test func everySampleOfEveryCatalogIsInTheCompiledPackage() throws {
        let catalogs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources").path).sorted()
            .compactMap { target -> (String, URL)? in
                let catalog = Self.root.appendingPathComponent("Sources/\(target)/\(target).docc")
                return FileManager.default.fileExists(atPath: catalog.path) ? (target, catalog) : nil
            }
        #expect(catalogs.count >= 5, "one catalog a library product: \(catalogs.map(\.0))")
        var total = 0
        for (target, catalog) in catalogs {
            let files =
                try Self.files(under: catalog, ending: ".md")
                + Self.files(under: Self.root.appendingPathComponent("Sources/\(target)"), ending: ".swift")
            let blocks = try files.flatMap { try Self.swiftBlocks(in: $0) }
            total += blocks.count
            guard !blocks.isEmpty else { continue }
            let compiled = try String(contentsOf: Self.samples.appendingPathComponent("\(target).swift"), encoding: .utf8)
            for (file, block) in blocks {
                let lines = block.filter { !$0.hasPrefix("import ") }
                // A function's body, or (a sample that declares a test) at the file's top level.
                let body = lines.map { $0.isEmpty ? "" : "        " + $0 }.joined(separator: "\n")
                let found = compiled.contains(body) || compiled.contains(lines.joined(separator: "\n"))
                #expect(found, "a sample of \(file.lastPathComponent) is not in DocSamples; run scripts/doc-samples.py:\n\(body)")
            }
        }
        #expect(total > 50, "the scan found \(total) samples; it no longer reads the catalogs")
    }

    /// The ```swift blocks of an article, or of the documentation comments of a source file.
    private static func swiftBlocks(in file: URL) throws -> [(URL, [String])] {
        let comments = file.pathExtension == "swift"
        var blocks: [(URL, [String])] = []
        var current: [String]?
        for rawLine in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(rawLine)
            if comments {
                guard let match = line.firstMatch(of: #/^\s*/// ?(.*)$/#) else {
                    current = nil
                    continue
                }
                line = String(match.1)
            }
            if current == nil {
                if line.hasPrefix("```swift") { current = [] }
            } else if line.hasPrefix("```") {
                blocks.append((file, current!))
                current = nil
            } else {
                current!.append(line)
            }
        }
        return blocks
    }

    private static func files(under folder: URL, ending suffix: String) throws -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.lastPathComponent.hasSuffix(suffix) }.sorted { $0.path < $1.path }
    }
}
