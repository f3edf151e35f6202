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
        _superCommandName: CourierCLI.name,
        abstract: "Store test entries in a disk cache folder in a loop (for crash tests).",
        shouldDisplay: false
    )

    @Option(help: "The cache folder.")
    var cache: String

    @Option(
        parsing: .unconditional, help: "How many entries to store before stopping, 0 to 1000000000.",
        transform: OptionRange.whole(in: 0...1_000_000_000)
    )
    var count: Int = 100_000

    @Option(
        parsing: .unconditional, help: "How many distinct keys to cycle through, 1 to 1000000.",
        transform: OptionRange.whole(in: 1...1_000_000)
    )
    var keys: Int = 40

    @Option(
        parsing: .unconditional, help: "The folder's limit in bytes, 1 or more.",
        transform: OptionRange.whole(in: 1...Int.max)
    )
    var maximumBytes: Int = 2 * 1024 * 1024

    /// At most 10^9, so that a serial, `seed × 10^6 + index`, stays far inside `Int`.
    @Option(
        parsing: .unconditional, help: "A number, 0 to 1000000000, that makes this run's serials differ from other runs'.",
        transform: OptionRange.whole(in: 0...1_000_000_000)
    )
    var seed: Int = 0

    func run() async throws {
        try PathCheck.folderOrNothing(cache, option: "--cache")
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
            let entry = CourierCacheEntry(
                key: key, variant: variant, status: 200, reasonPhrase: "OK", headers: ["Serial": String(serial)], body: body,
                requestDate: Date(), responseDate: Date()
            )
            try await CacheCommand.perform { try await storage.store(entry) }
        }
    }
}
