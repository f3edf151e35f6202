import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes a disk cache folder holds, kept in a small file so that a store need not list the
/// folder to know whether it must evict.
///
/// The file is 16 bytes: the total, then its bitwise complement, so that a torn write reads as
/// unknown. It is an estimate (a process killed between a rename and the ledger update leaves
/// it short by one entry); eviction recounts it from the files. Read and write it holding the
/// folder's lock.
struct DiskCacheLedger {
    let path: String

    /// The recorded total, or `nil` when the file is missing or damaged.
    func read() -> Int? {
        guard case .opened(let descriptor) = POSIXFiles.open(path, O_RDONLY) else { return nil }
        defer { close(descriptor) }
        guard let data = POSIXFiles.readAll(descriptor, limit: 16), data.count == 16 else { return nil }
        let words = (0..<2).map { index in data[(index * 8)..<(index * 8 + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        guard words[0] == ~words[1], words[0] <= UInt64(Int.max) else { return nil }
        return Int(words[0])
    }

    /// Records `total`.
    func write(_ total: Int) {
        guard case .opened(let descriptor) = POSIXFiles.open(path, O_WRONLY | O_CREAT) else { return }
        defer { close(descriptor) }
        let value = UInt64(max(total, 0))
        var data = Data()
        for word in [value, ~value] {
            withUnsafeBytes(of: word.bigEndian) { data.append(contentsOf: $0) }
        }
        _ = POSIXFiles.writeAll(descriptor, data)
    }

    /// Adds `delta` to the recorded total; returns the new total, or `nil` when it was unknown.
    @discardableResult
    func add(_ delta: Int) -> Int? {
        guard let total = read() else { return nil }
        write(total + delta)
        return total + delta
    }
}
