import Courier
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The queue database's folder and file, made private before SQLite opens them.
///
/// A missing folder is created with mode 0700, a missing file with mode 0600, whatever the
/// umask; SQLite then creates the `-wal` and `-shm` files beside it with the database's own
/// mode. A folder that was there already and lets other users in is reported and left as it
/// is. A database file (or its `-wal` or `-shm`) that lets other users in is the queue's own:
/// it is made 0600, and reported, since it may have been read meanwhile.
enum QueueFiles {
    /// Prepares the folder and file for the database at `path`; returns the warnings to report.
    static func prepare(path: String) throws(CourierError) -> [String] {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var warnings: [String] = []
        switch PrivateFiles.makeFolder(folder) {
        case .created:
            break
        case .existed:
            let fix = "choose a QueueConfiguration.path (`--queue`) in a private folder"
            if let warning = PrivateFiles.openFolderWarning(folder, holding: "the durable queue's database", fix: fix) {
                warnings.append(warning)
            }
        case .failed(let reason):
            throw CourierError(
                .queueStorage,
                "The folder \(folder) for the queue database cannot be created: \(reason). Choose another QueueConfiguration.path."
            )
        }
        switch PrivateFiles.makeFile(path) {
        case .created:
            break
        case .existed:
            if let warning = tighten(path) { warnings.append(warning) }
        case .failed(let reason):
            throw CourierError(
                .queueStorage,
                "The queue database \(path) cannot be created: \(reason). Check that its folder is writable, or choose another QueueConfiguration.path."
            )
        }
        return warnings
    }

    /// Makes the database at `path`, and its `-wal` and `-shm` files, 0600 when they let
    /// other users in; the sentence that reports it, or `nil` when they were private.
    private static func tighten(_ path: String) -> String? {
        var opened: [String] = []
        var refused: [String] = []
        for file in [path, path + "-wal", path + "-shm"] {
            guard let mode = PrivateFiles.permissions(of: file), PrivateFiles.isOpenToOthers(mode) else { continue }
            if chmod(file, 0o600) == 0 {
                opened.append("\(file) (mode \(PrivateFiles.octal(mode)))")
            } else {
                refused.append("\(file) (mode \(PrivateFiles.octal(mode)): \(String(cString: strerror(errno))))")
            }
        }
        if !refused.isEmpty {
            return "The queue database files \(refused.joined(separator: ", ")) are open to other users and could not be made private; run `chmod 600` on them, or choose another QueueConfiguration.path."
        }
        guard !opened.isEmpty else { return nil }
        return "The queue database files \(opened.joined(separator: ", ")) were open to other users; Courier made them private (0600). What they held may have been read meanwhile."
    }
}
