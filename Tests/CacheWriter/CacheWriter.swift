import Courier
import CourierTesting
import Foundation

/// `courier-cache-writer --cache DIR [--seed N] [--keys N] [--count N]`: stores entries with
/// self-describing bodies in a disk cache folder in a loop, after printing `ready` once the store
/// is open. The crash-safety tests (CacheCrashTests) run it as a child process and kill it with
/// SIGKILL at many points, then check that the folder serves only intact entries.
@main
struct CacheWriter {
    /// The folder's limit in bytes.
    static let maximumBytes = 2 * 1024 * 1024

    static func main() async throws {
        let options = try Options(CommandLine.arguments.dropFirst())
        let storage = try DiskCacheStorage(
            directory: URL(fileURLWithPath: options.cache, isDirectory: true), maximumBytes: maximumBytes
        )
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        for index in 0..<options.count {
            // seed < 10^9 and index < 10^6 keep the serial inside Int and distinct per run.
            let serial = options.seed * 1_000_000 + index
            let key = "https://example.test/items/\(index % options.keys)"
            let variant = index % 3 == 0 ? "" : "accept=\(index % 3)"
            let body = SelfDescribingBody.make(key: key, variant: variant, serial: serial, length: (index * 7919) % 40_000)
            let entry = CourierCacheEntry(
                key: key, variant: variant, status: 200, reasonPhrase: "OK", headers: ["Serial": String(serial)], body: body,
                requestDate: Date(), responseDate: Date()
            )
            try await storage.store(entry)
        }
    }
}

/// The writer's arguments; anything else is refused.
struct Options {
    var cache = ""
    var seed = 0
    var keys = 40
    var count = 100_000

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let name = rest.popFirst() {
            guard let value = rest.popFirst() else { throw BadArguments(detail: "\(name) needs a value") }
            switch name {
            case "--cache": cache = value
            case "--seed": seed = try Self.whole(value, name, in: 0...999_999_999)
            case "--keys": keys = try Self.whole(value, name, in: 1...1_000_000)
            case "--count": count = try Self.whole(value, name, in: 0...999_999)
            default: throw BadArguments(detail: "unknown option \(name)")
            }
        }
        if cache.isEmpty { throw BadArguments(detail: "--cache DIR is required") }
    }

    static func whole(_ text: String, _ name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw BadArguments(detail: "\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}

/// The command line did not say what the writer needs.
struct BadArguments: Error, CustomStringConvertible {
    var detail: String
    var description: String { "courier-cache-writer: \(detail)" }
}
