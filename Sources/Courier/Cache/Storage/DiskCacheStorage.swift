import Foundation
import NIOConcurrencyHelpers
import NIOPosix

/// A cache store in a folder on disk, bounded by bytes, that survives restarts and crashes.
///
/// ```swift
/// let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cache")
/// let disk = try DiskCacheStorage(directory: folder, maximumBytes: 100 * 1024 * 1024)
/// ```
///
/// - Each entry is one file, named by the SHA-256 of its key and of its variant (never by the
///   URL), created with mode 0600 in folders with mode 0700.
/// - A write goes to a temporary file beside the entry, is flushed to disk, then renamed into
///   place, and the folder is flushed too: a crash leaves the old entry or the new one, never
///   a mixture.
/// - Each file carries its metadata's and body's lengths and a SHA-256 of both, checked on
///   every read. A torn, truncated or altered file is a miss, and it is removed.
/// - When the files pass ``maximumBytes``, the least recently stored or read entries are
///   removed until nine tenths of the limit remain. The order survives restarts: it is kept in
///   the files' modification times. (A read leaves the time as it is when this store's last
///   store or read, less than a second before, was of that same file.)
/// - Several stores, in one process or in several, may share one folder. Changes to the set
///   of files take an advisory lock (`flock`) on `FOLDER/lock`; reads take none and treat a
///   file removed under them as a miss.
///
/// Reads of entries up to 64 KiB run on the caller's thread: opening, reading and checking a
/// file of that size costs less than a hand-off to another thread. Every other file operation
/// (larger reads, writes, removals, and anything that takes the lock) runs on NIO's blocking
/// thread pool, never on the caller's executor.
public struct DiskCacheStorage: CacheStorage {
    /// The largest entry file read on the caller's thread.
    static let inlineReadLimit = 64 * 1024

    /// 256 MiB, the default limit.
    public static let defaultMaximumBytes = 256 * 1024 * 1024

    /// The folder the entries are kept in.
    public let directory: URL
    /// The most bytes the entry files may take in all; entries larger than this are not kept.
    public let maximumBytes: Int
    /// One sentence when the folder was there already and open to other users (its group or
    /// others have any access); Courier leaves such a folder as it is. Empty when the folder
    /// is private, or was created by this store (mode 0700).
    public let permissionWarnings: [String]

    private let folder: DiskCacheFolder
    private let counted = NIOLockedValueBox(false)
    private let pool: NIOThreadPool

    /// Opens the cache in `directory`, creating the folder (mode 0700) if needed, and the
    /// missing folders above it (mode 0700 too, like a missing `~/.cache`). A folder that was
    /// there already and lets other users in is reported in ``permissionWarnings``.
    ///
    /// - Throws: ``CourierError/Kind/cacheStorageFailed`` when the folder cannot be created.
    public init(directory: URL, maximumBytes: Int = DiskCacheStorage.defaultMaximumBytes) throws(CourierError) {
        guard maximumBytes > 0 else {
            throw CourierError(.cacheStorageFailed, "A disk cache needs a positive maximumBytes; \(maximumBytes) was given.")
        }
        self.directory = directory.standardizedFileURL
        self.maximumBytes = maximumBytes
        let folder = try DiskCacheFolder(root: self.directory.path, maximumBytes: maximumBytes)
        self.folder = folder
        self.permissionWarnings = folder.permissionWarnings
        self.pool = NIOThreadPool.singleton
    }

    public func entries(forKey key: String) async throws -> [CourierCacheEntry] {
        if let entries = try folder.entries(forKey: key, inlineLimit: Self.inlineReadLimit) { return entries }
        return try await run { folder in try folder.entries(forKey: key) ?? [] }
    }

    public func store(_ entry: CourierCacheEntry) async throws {
        let recount = counted.withLockedValue { counted in
            defer { counted = true }
            return !counted
        }
        try await run { folder in
            // The first store of each instance recounts, so that a ledger left short by a
            // crash does not let the folder grow past its limit for long.
            if recount { try folder.recount() }
            try folder.store(entry)
        }
    }

    public func removeEntry(forKey key: String, variant: String) async throws {
        try await run { folder in try folder.remove(paths: [folder.entryPath(key, variant)]) }
    }

    public func removeEntries(forKey key: String) async throws {
        try await run { folder in try folder.remove(paths: folder.variantPaths(key)) }
    }

    public func removeAll() async throws {
        try await run { folder in try folder.removeAll() }
    }

    /// The entry files and the bytes they take on disk, counted from the files.
    public func statistics() async throws -> CacheStatistics {
        try await run { folder in
            let files = folder.scan()
            return CacheStatistics(entryCount: files.count, totalBytes: files.reduce(0) { $0 + $1.size })
        }
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable (DiskCacheFolder) throws -> T) async throws -> T {
        let folder = self.folder
        return try await pool.runIfActive { try work(folder) }
    }
}
