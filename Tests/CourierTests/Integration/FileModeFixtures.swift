import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The permission bits of the file or folder at `path`; -1 when there is none.
func modeBits(_ path: String) -> Int {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    return (attributes?[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// Runs `body` with the umask set to `mask`, then restores the previous one.
func withUmask<T>(_ mask: mode_t, _ body: () async throws -> T) async rethrows -> T {
    let previous = umask(mask)
    defer { umask(previous) }
    return try await body()
}
