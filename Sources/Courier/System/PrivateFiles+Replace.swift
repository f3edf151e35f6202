import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension PrivateFiles {
    /// Why a private file could not be written, as a phrase for a message.
    package struct WriteFailure: Error, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    /// Replaces what is at `path` with a file holding `bytes`, in one step and for the owner
    /// alone: a new file (mode 0600 whatever the umask) is written beside it, forced to disk,
    /// and renamed over `path`. A reader sees the old file or the new one, never a part; a
    /// symbolic link at `path` is replaced, never written through.
    package static func replaceFile(_ path: String, with bytes: Data) throws(WriteFailure) {
        let name = (path as NSString).lastPathComponent
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = (folder.isEmpty ? "" : folder + "/") + ".\(name).courier-\(UUID().uuidString.prefix(8))"
        let descriptor: Int32
        switch POSIXFiles.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600) {
        case .opened(let opened): descriptor = opened
        case .missing: throw WriteFailure(reason: "its folder does not exist")
        case .notRegular: throw WriteFailure(reason: "something other than a file is at \(temporary)")
        case .failed(let code): throw WriteFailure(reason: String(cString: strerror(code)))
        }
        // The umask may have taken the owner's bits away; the file is new and ours.
        _ = fchmod(descriptor, 0o600)
        let written = POSIXFiles.writeAll(descriptor, bytes) && fsync(descriptor) == 0
        let code = errno
        close(descriptor)
        guard written else {
            _ = POSIXFiles.unlink(temporary)
            throw WriteFailure(reason: String(cString: strerror(code)))
        }
        switch POSIXFiles.rename(temporary, to: path) {
        case .done: return
        case .missing:
            _ = POSIXFiles.unlink(temporary)
            throw WriteFailure(reason: "its folder was removed while it was written")
        case .failed(let code):
            _ = POSIXFiles.unlink(temporary)
            throw WriteFailure(reason: String(cString: strerror(code)))
        }
    }
}
