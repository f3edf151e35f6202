import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX calls the disk cache and the readers of files a user names need, with `errno`
/// turned into results and errors.
///
/// Foundation's file APIs cannot fsync a directory, take an advisory lock, create a file with
/// `O_EXCL` and a mode in one step, set a file's times to the nanosecond, or open a file
/// without waiting (a FIFO opened by `FileHandle` or `Data(contentsOf:)` blocks until something
/// writes to it); these can.
package enum POSIXFiles {
    /// The outcome of a call that may fail because a path is missing.
    enum Outcome: Equatable {
        case done
        case missing
        case failed(Int32)
    }

    /// The outcome of opening a file.
    enum Opened {
        case opened(Int32)
        case missing
        /// Something other than a regular file (a FIFO, a socket, a device, a folder) is there.
        case notRegular
        case failed(Int32)
    }

    /// Opens `path` with `flags`; a new file gets `mode`.
    ///
    /// Never waits and, unless `followsLinks`, never follows a symbolic link in the last
    /// component: a FIFO put in the folder would otherwise block a read until something writes
    /// to it. Anything but a regular file (or, with `O_DIRECTORY`, a folder) is closed again and
    /// refused. The descriptor returned is in blocking mode again, which a regular file ignores.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600, followsLinks: Bool = false) -> Opened {
        let flags = flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (followsLinks ? 0 : O_NOFOLLOW)
        while true {
            let descriptor = path.withCString { systemOpen($0, flags, mode) }
            if descriptor >= 0 {
                guard flags & O_DIRECTORY != 0 || FileStatus(descriptor: descriptor)?.isRegularFile == true else {
                    close(descriptor)
                    return .notRegular
                }
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                return .opened(descriptor)
            }
            if errno == EINTR { continue }
            switch errno {
            case ENOENT: return .missing
            // A FIFO opened for writing with no reader, or a symbolic link.
            case ENXIO, ELOOP: return .notRegular
            default: return .failed(errno)
            }
        }
    }

    /// Why a file could not be read, as a phrase for a message.
    package struct ReadFailure: Error, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    /// The contents of the regular file at `path`, symbolic links followed, opened without
    /// waiting: a FIFO, a socket, a device or a folder is refused, never read, and so is a
    /// file of more than `limit` bytes.
    package static func contentsOfRegularFile(_ path: String, limit: Int = .max) throws(ReadFailure) -> Data {
        let descriptor: Int32
        switch open(path, O_RDONLY, followsLinks: true) {
        case .opened(let opened): descriptor = opened
        case .missing: throw ReadFailure(reason: String(cString: strerror(ENOENT)))
        case .notRegular: throw ReadFailure(reason: "not a regular file")
        case .failed(let code): throw ReadFailure(reason: String(cString: strerror(code)))
        }
        defer { close(descriptor) }
        if let size = FileStatus(descriptor: descriptor)?.size, size > limit {
            throw ReadFailure(reason: "it is larger than \(limit) bytes")
        }
        guard let data = readAll(descriptor, limit: limit) else {
            throw ReadFailure(reason: "it changed or could not be read to its end")
        }
        return data
    }

    /// Writes all of `bytes` to `descriptor`.
    static func writeAll(_ descriptor: Int32, _ bytes: Data) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    /// Reads the whole file open on `descriptor`, at most `limit` bytes; `nil` on failure or
    /// when the file is larger than `limit`.
    static func readAll(_ descriptor: Int32, limit: Int) -> Data? {
        guard let status = FileStatus(descriptor: descriptor), status.size <= limit else { return nil }
        return read(descriptor, count: Int(status.size))
    }

    /// Reads `count` bytes from `descriptor`; `nil` on failure or when the file ends before.
    static func read(_ descriptor: Int32, count: Int) -> Data? {
        var data = Data(count: count)
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = systemRead(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return false }
                offset += count
            }
            return true
        }
        return complete ? data : nil
    }

    /// The names in the folder at `path`, without `.` and `..`; empty when it cannot be read.
    static func names(in path: String) -> [String] {
        guard let folder = opendir(path) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let item = readdir(folder) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Flushes the directory at `path` to stable storage, so that names created, renamed or
    /// removed in it survive a crash.
    static func syncDirectory(_ path: String) {
        guard case .opened(let descriptor) = open(path, O_RDONLY | O_DIRECTORY) else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// Creates a directory with mode 0700; `true` when it was created, `false` when it was
    /// already there.
    static func makeDirectory(_ path: String) throws(CourierError) -> Bool {
        if mkdir(path, 0o700) == 0 {
            _ = chmod(path, 0o700)
            return true
        }
        let code = errno
        if code == EEXIST { return false }
        throw failure("create the folder \(path)", code)
    }

    /// Renames `from` to `to`, replacing `to` atomically.
    static func rename(_ from: String, to: String) -> Outcome {
        outcome(systemRename(from, to))
    }

    /// Removes the file at `path`.
    static func unlink(_ path: String) -> Outcome {
        outcome(systemUnlink(path))
    }

    /// Runs `body` holding an exclusive advisory lock (`flock`) on the file at `path`, which is
    /// created if needed. Each call opens the file anew, so that two stores in one process
    /// exclude each other as two processes do.
    static func withExclusiveLock<T>(_ path: String, _ body: () throws(CourierError) -> T) throws(CourierError) -> T {
        let descriptor: Int32
        switch open(path, O_RDWR | O_CREAT) {
        case .opened(let opened): descriptor = opened
        case .notRegular: throw CourierError(.cacheUnavailable, "The cache's lock file \(path) is not a regular file; remove it, or use another cache folder.")
        case .missing: throw failure("open the lock file \(path)", ENOENT)
        case .failed(let code): throw failure("open the lock file \(path)", code)
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw failure("lock \(path)", errno) }
        }
        defer { _ = flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// The error for a failed call.
    static func failure(_ action: String, _ code: Int32) -> CourierError {
        CourierError(
            .cacheStorageFailed,
            "The disk cache could not \(action): \(String(cString: strerror(code))). Check that the cache folder exists, is writable and has free space."
        )
    }

    private static func outcome(_ result: Int32) -> Outcome {
        if result == 0 { return .done }
        return errno == ENOENT ? .missing : .failed(errno)
    }
}

private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(descriptor, buffer, count) }
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { read(descriptor, buffer, count) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
private func systemUnlink(_ path: String) -> Int32 { unlink(path) }
