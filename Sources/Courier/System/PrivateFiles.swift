import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Folders and files that hold private data (the queue's records, the cache's entries): created
/// for their owner alone whatever the process's umask, and reported when one that was there
/// already lets other users in.
package enum PrivateFiles {
    /// What making a folder or file came to.
    package enum Made: Equatable {
        /// It was created, private.
        case created
        /// It was there already, as it was.
        case existed
        /// It could not be created: the system's reason.
        case failed(String)
    }

    /// Creates the folder at `path` with mode 0700 whatever the umask, and the missing folders
    /// above it (see ``makeParents(of:)``).
    package static func makeFolder(_ path: String) -> Made {
        if let reason = makeParents(of: path) { return .failed(reason) }
        if mkdir(path, 0o700) == 0 {
            // The umask may have taken bits away; the folder is new and ours.
            _ = chmod(path, 0o700)
            return .created
        }
        let code = errno
        return code == EEXIST ? .existed : .failed(String(cString: strerror(code)))
    }

    /// Creates the missing folders above `path`, like `mkdir -p`, each for its owner alone (the
    /// XDG base directory rule for a folder a program makes, such as a missing `~/.cache`);
    /// returns the system's reason when one cannot be made, `nil` otherwise.
    package static func makeParents(of path: String) -> String? {
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) else { return nil }
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return nil
        } catch {
            return error.localizedDescription
        }
    }

    /// Creates an empty file at `path` with mode 0600 whatever the umask, unless one is there.
    package static func makeFile(_ path: String) -> Made {
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                _ = fchmod(descriptor, 0o600)
                close(descriptor)
                return .created
            }
            let code = errno
            if code == EINTR { continue }
            return code == EEXIST ? .existed : .failed(String(cString: strerror(code)))
        }
    }

    /// The permission bits of what `path` names, symbolic links followed; `nil` when nothing is there.
    package static func permissions(of path: String) -> mode_t? {
        let resolved = (path as NSString).resolvingSymlinksInPath
        return FileStatus(path: resolved).map { $0.mode & 0o7777 }
    }

    /// Whether `permissions` give the group or other users any access.
    package static func isOpenToOthers(_ permissions: mode_t) -> Bool {
        permissions & 0o077 != 0
    }

    /// `0755`.
    package static func octal(_ permissions: mode_t) -> String {
        let digits = String(permissions & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The sentence that reports the folder at `path` open to other users, or `nil` when it is
    /// private (or missing). Courier does not change the mode of a folder it did not create.
    package static func openFolderWarning(_ path: String, holding what: String, fix: String) -> String? {
        guard let mode = permissions(of: path), isOpenToOthers(mode) else { return nil }
        return "The folder \(path), which holds \(what), is open to other users (mode \(octal(mode))); Courier leaves it as it is. Make it private with `chmod 700 \(path)`, or \(fix)."
    }
}
