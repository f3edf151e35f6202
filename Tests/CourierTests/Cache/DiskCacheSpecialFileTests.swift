import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs `operation`, failing with an error instead of waiting past `seconds`: a guard against a
/// hang, not a measure of time.
private func withoutHanging<T: Sendable>(_ seconds: Int = 60, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw CourierError(.timeout, "the operation did not end: it hung")
        }
        return value
    }
}

@Suite("Disk cache storage: files that are not regular files")
struct DiskCacheSpecialFileTests {
    static let key = "https://example.test/special"

    @Test("a FIFO, a folder or a symbolic link where an entry belongs is a miss, never a blocking read", arguments: ["fifo", "folder", "link"])
    func specialFileIsAMiss(kind: String) async throws {
        try await withDiskCache { storage, folder in
            try await storage.store(sampleEntry(key: Self.key, variant: "v", length: 100))
            let path = entryFile(in: folder, key: Self.key, variant: "v").path
            try FileManager.default.removeItem(atPath: path)
            switch kind {
            case "fifo": #expect(mkfifo(path, 0o600) == 0)
            case "folder": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            default: try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/etc/hostname")
            }
            let entries = try await withoutHanging { try await storage.entries(forKey: Self.key) }
            #expect(entries.isEmpty)
            // Storing again replaces a FIFO or a link with a real entry; a folder in the way is a
            // typed storage failure, which a client takes as a future miss.
            if kind == "folder" {
                await #expect(throws: CourierError.self) {
                    try await withoutHanging { try await storage.store(sampleEntry(key: Self.key, variant: "v", length: 100)) }
                }
            } else {
                try await withoutHanging { try await storage.store(sampleEntry(key: Self.key, variant: "v", length: 100)) }
                let stored = try await withoutHanging { try await storage.entries(forKey: Self.key) }
                #expect(stored.count == 1)
            }
        }
    }
}
