import Crypto
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The blocking file work of ``DiskCacheStorage``, on one cache folder.
///
/// ```
/// FOLDER/lock                      flock'd by every change of the entry set and the ledger
/// FOLDER/ledger                    the bytes stored, an estimate that triggers eviction
/// FOLDER/entries/KEY/VARIANT       one entry file (see DiskEntryFormat)
/// FOLDER/entries/KEY/.tmp-UUID     an entry being written
/// ```
///
/// KEY and VARIANT are the hexadecimal SHA-256 of the primary key and of the variant. Entry
/// files are written beside their final name, flushed, then renamed into place under the lock;
/// readers take no lock and treat a file that vanishes as a miss. A file's modification time
/// is the last time it was stored or read, so least-recently-used eviction survives restarts.
struct DiskCacheFolder: Sendable {
    let root: String
    let maximumBytes: Int
    /// What opening found open to other users (see ``DiskCacheStorage/permissionWarnings``).
    let permissionWarnings: [String]
    private let clock: StampClock

    private var lockPath: String { root + "/lock" }
    private var entriesPath: String { root + "/entries" }
    var ledger: DiskCacheLedger { DiskCacheLedger(path: root + "/ledger") }

    init(root: String, maximumBytes: Int) throws(CourierError) {
        self.root = root
        self.maximumBytes = maximumBytes
        self.clock = StampClock()
        if let reason = PrivateFiles.makeParents(of: root) {
            throw CourierError(
                .cacheStorageFailed,
                "The disk cache could not create the folders above \(root): \(reason). Create them, or choose a cache folder that can be made."
            )
        }
        if try POSIXFiles.makeDirectory(root) {
            POSIXFiles.syncDirectory((root as NSString).deletingLastPathComponent)
            permissionWarnings = []
        } else {
            let fix = "choose a cache folder of your own"
            permissionWarnings = PrivateFiles.openFolderWarning(root, holding: "a disk cache", fix: fix).map { [$0] } ?? []
        }
        if try POSIXFiles.makeDirectory(entriesPath) { POSIXFiles.syncDirectory(root) }
    }

    func keyPath(_ key: String) -> String {
        entriesPath + "/" + SHA256.hash(data: Data(key.utf8)).hexadecimal
    }

    func entryPath(_ key: String, _ variant: String) -> String {
        keyPath(key) + "/" + SHA256.hash(data: Data(variant.utf8)).hexadecimal
    }

    // MARK: Reading

    /// Every intact variant of `key`, most recently stored first. Damaged files are removed.
    ///
    /// With an `inlineLimit`, the call never waits for the folder's lock nor reads a large file:
    /// it returns `nil` instead when a file is larger than `inlineLimit` bytes or damaged (its
    /// removal takes the lock), and the caller asks again without a limit where it may block.
    func entries(forKey key: String, inlineLimit: Int? = nil) throws(CourierError) -> [CourierCacheEntry]? {
        let folder = keyPath(key)
        var found: [(entry: CourierCacheEntry, stored: Int64)] = []
        for name in POSIXFiles.names(in: folder) where !name.hasPrefix(".") {
            switch try read(folder + "/" + name, key: key, inlineLimit: inlineLimit) {
            case .found(let entry, let stored): found.append((entry, stored))
            case .missing: continue
            case .deferred: return nil
            }
        }
        if found.count == 1 { return [found[0].entry] }
        return found.sorted { $0.stored > $1.stored }.map(\.entry)
    }

    private enum Read {
        case found(CourierCacheEntry, stored: Int64)
        case missing
        case deferred
    }

    private func read(_ path: String, key: String, inlineLimit: Int?) throws(CourierError) -> Read {
        let descriptor: Int32
        switch POSIXFiles.open(path, O_RDONLY) {
        case .opened(let opened): descriptor = opened
        // Not an entry Courier wrote (a FIFO, a link, a folder): a miss, never a blocking read.
        case .missing, .notRegular: return .missing
        case .failed(let code): throw POSIXFiles.failure("read \(path)", code)
        }
        defer { close(descriptor) }
        let status = FileStatus(descriptor: descriptor)
        if let inlineLimit, let status, status.size > inlineLimit { return .deferred }
        let file = status.flatMap { $0.size <= maximumBytes ? POSIXFiles.read(descriptor, count: Int($0.size)) : nil }
        guard let status, let file, let decoded = DiskEntryFormat.decode(file), decoded.entry.key == key,
            path.hasSuffix(SHA256.hash(data: Data(decoded.entry.variant.utf8)).hexadecimal)
        else {
            if inlineLimit != nil { return .deferred }
            try removeDamaged(path, descriptor: descriptor)
            return .missing
        }
        // The time records the use for eviction; a file that already carries the latest time
        // this store handed out (nothing else was stored or read since), less than a second
        // ago, keeps it.
        if !clock.isLatest(status.modified) { FileStatus.setTimes(descriptor, nanoseconds: clock.next()) }
        return .found(decoded.entry, stored: decoded.storedAt)
    }

    /// Removes the damaged file at `path` if it is still the one open on `descriptor`, and not
    /// a good one another writer renamed into its place meanwhile.
    private func removeDamaged(_ path: String, descriptor: Int32) throws(CourierError) {
        guard let opened = FileStatus(descriptor: descriptor) else { return }
        try POSIXFiles.withExclusiveLock(lockPath) { () throws(CourierError) in
            guard let current = FileStatus(path: path), current.device == opened.device, current.inode == opened.inode else { return }
            if POSIXFiles.unlink(path) == .done { ledger.add(-Int(current.size)) }
        }
    }

    // MARK: Writing

    /// Writes `entry` to a temporary file, flushes it and renames it into place; evicts the
    /// least recently used entries when the folder is over its limit.
    func store(_ entry: CourierCacheEntry) throws(CourierError) {
        let stamp = clock.next()
        let file = try DiskEntryFormat.encode(entry, storedAt: stamp)
        let folder = keyPath(entry.key)
        let target = entryPath(entry.key, entry.variant)
        guard file.count <= maximumBytes else {
            // Too large to keep: make sure the response it replaces is not served either.
            try remove(paths: [target])
            return
        }
        // A folder emptied and removed by eviction between mkdir and open is made again.
        for _ in 0..<8 {
            if try POSIXFiles.makeDirectory(folder) { POSIXFiles.syncDirectory(entriesPath) }
            let temporary = folder + "/.tmp-" + UUID().uuidString
            let descriptor: Int32
            switch POSIXFiles.open(temporary, O_WRONLY | O_CREAT | O_EXCL) {
            case .opened(let opened): descriptor = opened
            case .missing, .notRegular: continue
            case .failed(let code): throw POSIXFiles.failure("create \(temporary)", code)
            }
            let written = POSIXFiles.writeAll(descriptor, file) && fsync(descriptor) == 0
            let code = errno
            if written { FileStatus.setTimes(descriptor, nanoseconds: stamp) }
            close(descriptor)
            guard written else {
                _ = POSIXFiles.unlink(temporary)
                throw POSIXFiles.failure("write \(temporary)", code)
            }
            try POSIXFiles.withExclusiveLock(lockPath) { () throws(CourierError) in
                let replaced = FileStatus(path: target).map { Int($0.size) } ?? 0
                if case .failed(let code) = POSIXFiles.rename(temporary, to: target) {
                    _ = POSIXFiles.unlink(temporary)
                    throw POSIXFiles.failure("rename \(temporary) to \(target)", code)
                }
                POSIXFiles.syncDirectory(folder)
                let total = ledger.add(file.count - replaced)
                if total.map({ $0 > maximumBytes }) ?? true { evict() }
            }
            return
        }
        throw CourierError(.cacheStorageFailed, "The disk cache could not keep the folder \(folder) long enough to write an entry; another process keeps removing it. Try again.")
    }

    // MARK: Removing

    /// Removes the files at `paths` (temporary files are left to their writers).
    func remove(paths: [String]) throws(CourierError) {
        try POSIXFiles.withExclusiveLock(lockPath) { () throws(CourierError) in
            var removed = 0
            for path in paths {
                let size = FileStatus(path: path).map { Int($0.size) } ?? 0
                switch POSIXFiles.unlink(path) {
                case .done: removed += size
                case .missing: break
                case .failed(let code): throw POSIXFiles.failure("remove \(path)", code)
                }
            }
            ledger.add(-removed)
            for folder in Set(paths.map { ($0 as NSString).deletingLastPathComponent }) { _ = rmdir(folder) }
        }
    }

    /// The paths of every variant of `key`.
    func variantPaths(_ key: String) -> [String] {
        let folder = keyPath(key)
        return POSIXFiles.names(in: folder).filter { !$0.hasPrefix(".") }.map { folder + "/" + $0 }
    }

    /// The paths of every entry in the folder.
    func allPaths() -> [String] {
        scan().map(\.path)
    }

    // MARK: Sizes and eviction

    /// One entry file as the scan found it.
    struct Found {
        var path: String
        var size: Int
        var used: Int64
    }

    /// Every entry file, with its size and last use. Temporary files older than an hour,
    /// left by a writer that died, are removed.
    func scan() -> [Found] {
        var found: [Found] = []
        let abandoned = Int64(Date().timeIntervalSince1970 * 1e9) - 3_600_000_000_000
        for folder in POSIXFiles.names(in: entriesPath) {
            let folderPath = entriesPath + "/" + folder
            for name in POSIXFiles.names(in: folderPath) {
                let path = folderPath + "/" + name
                guard let status = FileStatus(path: path), status.isRegularFile else { continue }
                if name.hasPrefix(".") {
                    if status.modified < abandoned { _ = POSIXFiles.unlink(path) }
                } else {
                    found.append(Found(path: path, size: Int(status.size), used: status.modified))
                }
            }
        }
        return found
    }

    /// Removes the least recently used entries until the folder holds at most nine tenths of
    /// its limit, and writes the exact total to the ledger. Call it holding the lock.
    func evict() {
        var files = scan()
        var total = files.reduce(0) { $0 + $1.size }
        if total > maximumBytes {
            files.sort { ($0.used, $0.path) < ($1.used, $1.path) }
            let target = maximumBytes / 10 * 9
            for file in files where total > target {
                if case .failed = POSIXFiles.unlink(file.path) { continue }
                total -= file.size
                _ = rmdir((file.path as NSString).deletingLastPathComponent)
            }
        }
        ledger.write(total)
    }

    /// Recounts the ledger from the files, under the lock.
    func recount() throws(CourierError) {
        try POSIXFiles.withExclusiveLock(lockPath) { () throws(CourierError) in evict() }
    }

    /// Removes every entry and empty key folder.
    func removeAll() throws(CourierError) {
        try remove(paths: allPaths())
        try POSIXFiles.withExclusiveLock(lockPath) { () throws(CourierError) in
            for folder in POSIXFiles.names(in: entriesPath) { _ = rmdir(entriesPath + "/" + folder) }
            evict()
        }
    }
}

/// Hands out file times, in nanoseconds since 1970, that never repeat within one store, so
/// that entries stored or read in a row keep their order even where the system clock is coarse.
final class StampClock: Sendable {
    private let last = NIOLockedValueBox<Int64>(0)

    func next() -> Int64 {
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        return last.withLockedValue { last in
            last = max(now, last + 1)
            return last
        }
    }

    /// Whether `stamp` is the latest time handed out, and less than a second old.
    func isLatest(_ stamp: Int64) -> Bool {
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        return last.withLockedValue { $0 == stamp } && now - stamp < 1_000_000_000
    }
}
