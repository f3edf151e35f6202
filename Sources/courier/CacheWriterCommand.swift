import ArgumentParser
import Courier
import CourierTesting
import Foundation

/// `courier cache-writer --cache DIR`: stores entries with self-describing bodies in a loop.
/// Not listed in the help: the crash-safety tests run it as a child process and kill it at
/// random points with SIGKILL, then check that the folder serves only intact entries.
struct CacheWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache-writer",
        abstract: "Store test entries in a disk cache folder in a loop (for crash tests).",
        shouldDisplay: false
    )

    @Option(help: "The cache folder.")
    var cache: String

    @Option(help: "How many entries to store before stopping.")
    var count: Int = 100_000

    @Option(help: "How many distinct keys to cycle through.")
    var keys: Int = 40

    @Option(help: "The folder's limit in bytes.")
    var maximumBytes: Int = 2 * 1024 * 1024

    @Option(help: "A number that makes this run's serials differ from other runs'.")
    var seed: Int = 0

    func validate() throws {
        if count < 0 || keys < 1 || maximumBytes < 1 { throw ValidationError("--count, --keys and --maximum-bytes must be positive.") }
    }

    func run() async throws {
        let storage: DiskCacheStorage
        do {
            storage = try DiskCacheStorage(directory: URL(fileURLWithPath: cache, isDirectory: true), maximumBytes: maximumBytes)
        } catch {
            throw CommandFailure(error)
        }
        Output.current.write("ready\n")
        for index in 0..<count {
            let serial = seed * 1_000_000 + index
            let key = "https://example.test/items/\(index % keys)"
            let variant = index % 3 == 0 ? "" : "accept=\(index % 3)"
            let body = SelfDescribingBody.make(key: key, variant: variant, serial: serial, length: (index * 7919) % 40_000)
            let entry = CacheEntry(
                key: key, variant: variant, status: 200, reasonPhrase: "OK", headers: ["Serial": String(serial)], body: body,
                requestDate: Date(), responseDate: Date()
            )
            try await CacheCommand.perform { try await storage.store(entry) }
        }
    }
}
