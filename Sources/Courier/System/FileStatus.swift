import Foundation

#if canImport(Glibc)
import Glibc
// With member import visibility, the members of `stat` and `timespec` belong to whichever
// loaded module vends the struct: CoreFoundation or Dispatch as well as Glibc. This is the
// only file that uses them.
#if canImport(CoreFoundation)
import CoreFoundation
#endif
#if canImport(CDispatch)
import CDispatch
#endif
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat` says about a file: its size, type and permissions, modification time and
/// identity (device and inode).
struct FileStatus: Sendable, Hashable {
    /// The length in bytes.
    var size: Int64
    /// The type and permission bits (`st_mode`).
    var mode: mode_t
    /// The modification time, in nanoseconds since 1970.
    var modified: Int64
    /// The device the file is on.
    var device: UInt64
    /// The file's inode on its device.
    var inode: UInt64

    /// Whether the file is a regular file (not a folder, link, pipe or device).
    var isRegularFile: Bool { (mode & S_IFMT) == S_IFREG }

    /// The status of the file open on `descriptor`; `nil` when it cannot be read.
    init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The status of the entry at `path`, a symbolic link itself rather than its target;
    /// `nil` when there is none.
    init?(path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        size = Int64(info.st_size)
        mode = info.st_mode
        modified = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

extension FileStatus {
    /// Sets the access and modification times of the file open on `descriptor` to
    /// `nanoseconds` since 1970.
    static func setTimes(_ descriptor: Int32, nanoseconds: Int64) {
        let time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var times = [time, time]
        _ = futimens(descriptor, &times)
    }
}
