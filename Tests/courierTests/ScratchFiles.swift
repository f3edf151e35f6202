import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A new, empty folder of its own under the temporary folder; the caller removes it.
func scratchFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-scratch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// Makes a FIFO (named pipe) at `path`: opening it for reading would wait for a writer.
func makeFIFO(_ path: String) throws {
    guard mkfifo(path, 0o600) == 0 else {
        throw ScratchFileError(message: "mkfifo \(path) failed: \(String(cString: strerror(errno)))")
    }
}

/// Whether this process may make device files (it needs to be root): a test never gives a
/// real device such as /dev/null to a command that might replace it.
let canMakeDevices = getuid() == 0

/// Makes a character device at `path` with the numbers of /dev/null (1, 3), so that a command
/// that wrongly replaced it would replace only this copy.
func makeDevice(_ path: String) throws {
    guard mknod(path, S_IFCHR | 0o600, dev_t((1 << 8) | 3)) == 0 else {
        throw ScratchFileError(message: "mknod \(path) failed: \(String(cString: strerror(errno)))")
    }
}

/// Makes a Unix-domain socket file at `path` (bound, then closed: the file stays).
func makeSocketFile(_ path: String) throws {
    #if canImport(Darwin)
    let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
    #else
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    guard descriptor >= 0 else { throw ScratchFileError(message: "socket() failed: \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
        throw ScratchFileError(message: "\(path) is too long for a socket address")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0 else { throw ScratchFileError(message: "bind \(path) failed: \(String(cString: strerror(errno)))") }
}

/// A scratch file that could not be made, and why.
struct ScratchFileError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
