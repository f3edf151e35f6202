import Courier
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks of the paths `courier` reads, writes or keeps its state in, made before anything is
/// sent: what is already at a path must be of the kind the option expects (a FIFO, a socket or
/// a device is never opened for a blocking read or replaced), and a file still to be made needs
/// a folder to go in. Each refusal has curl's status — a file to read that cannot be read 26, a
/// file or folder to write that cannot be written 23 (a certificate file its own) — or, for the
/// cache and queue paths, a usage error (2); its one line names the option and the path.
enum PathCheck {
    /// What is at a path, symbolic links followed.
    enum Kind: Equatable {
        case nothing
        case file
        case folder
        /// Anything else, described: "a FIFO", "a socket", "a device".
        case special(String)

        /// The kind, as a message says what is there.
        var described: String {
            switch self {
            case .nothing: "nothing"
            case .file: "a file"
            case .folder: "a folder"
            case .special(let name): name
            }
        }
    }

    /// Whether `path` is a character device (`/dev/null`, a terminal), symbolic links followed.
    static func isCharacterDevice(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR
    }

    static func kind(of path: String) -> Kind {
        var status = stat()
        guard stat(path, &status) == 0 else { return .nothing }
        return kind(mode: status.st_mode)
    }

    /// The kind a `st_mode` says.
    private static func kind(mode: mode_t) -> Kind {
        switch mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder
        case S_IFIFO: return .special("a FIFO")
        case S_IFSOCK: return .special("a socket")
        case S_IFCHR, S_IFBLK: return .special("a device")
        default: return .special("a special file")
        }
    }

    /// A file the command reads (`--data @PATH`, `--json @PATH`, the batch file, `--file`,
    /// `--cacert`, `--cert`, `--key`, `--p12`): a regular file, symbolic links followed, that
    /// can be opened for reading. `name` is how the message names it, e.g. `--data @PATH`;
    /// `status` is the exit status of a file that cannot be read (curl's read error unless a
    /// certificate file's own status applies).
    static func readableFile(_ path: String, named name: String, status: ExitStatus = .readError) throws(CommandFailure) {
        close(try openRegularFile(path, named: name, status: status))
    }

    /// The contents of a file the command reads, checked as ``readableFile(_:named:)`` checks
    /// it; what is opened is what is read, so a FIFO put in its place meanwhile is refused too.
    /// A file of more than `limit` bytes is refused.
    static func contents(of path: String, named name: String, limit: Int = .max) throws(CommandFailure) -> Data {
        let handle = FileHandle(fileDescriptor: try openRegularFile(path, named: name, status: .readError), closeOnDealloc: true)
        do {
            guard limit < .max else { return try handle.readToEnd() ?? Data() }
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            guard data.count <= limit else {
                throw CommandFailure(.invalidInput, "\(name) is larger than \(limit) bytes; give a smaller file")
            }
            return data
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(.readError, "\(name): the file cannot be read (\(error.localizedDescription))")
        }
    }

    /// Opens `path` for reading without waiting (`O_NONBLOCK`: a FIFO with no writer does not
    /// block), and keeps it open only if it is a regular file.
    private static func openRegularFile(_ path: String, named name: String, status: ExitStatus) throws(CommandFailure) -> Int32 {
        func wrongKind(_ kind: Kind) -> CommandFailure {
            CommandFailure(status, "\(name) is \(kind.described), not a regular file; give a file to read")
        }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            // A socket cannot be opened at all: say what it is rather than why open failed.
            if case .special(let thing) = kind(of: path) { throw wrongKind(.special(thing)) }
            throw CommandFailure(status, "\(name): the file cannot be read (\(reason))")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw wrongKind(kind(mode: status.st_mode))
        }
        // Reads of a regular file never wait; clear the flag anyway for whoever reads it next.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return descriptor
    }

    /// A file the command replaces or makes (`-o`, `--cookie-jar`): a regular file or nothing,
    /// in a folder that exists and is writable; with `allowsDevice`, also a character device
    /// the command may write to, such as `/dev/null`.
    static func writableFile(_ path: String, option: String, allowsDevice: Bool = false) throws(CommandFailure) {
        if allowsDevice, isCharacterDevice(path) {
            guard access(path, W_OK) == 0 else {
                throw CommandFailure(.writeError, "\(option) \(path): the device is not writable; give a path you can write to")
            }
            return
        }
        let kind = kind(of: path)
        guard kind == .nothing || kind == .file else {
            throw CommandFailure(.writeError, "\(option) \(path): \(kind.described) is there; give the path of a regular file")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try writableFolder(folder, option: option, named: "\(option) \(path): its folder \(folder)")
    }

    /// Writes `bytes` whole to `path`, a file checked with ``writableFile(_:option:allowsDevice:)``:
    /// a device (`/dev/null`, a terminal) is written to as it is, a file replaced in one step,
    /// for its owner alone (0600).
    static func write(_ bytes: Data, to path: String, named name: String) throws(CommandFailure) {
        do {
            if isCharacterDevice(path) {
                try bytes.write(to: URL(fileURLWithPath: path))
            } else {
                try PrivateFiles.replaceFile(path, with: bytes)
            }
        } catch {
            throw CommandFailure(.writeError, "could not write \(name): \(error)")
        }
    }

    /// A folder the command writes into (`download --dir`): one that exists and is writable.
    static func writableFolder(_ path: String, option: String, named name: String? = nil) throws(CommandFailure) {
        let name = name ?? "\(option) \(path)"
        let kind = kind(of: path)
        guard kind == .folder else {
            let found = kind == .nothing ? "does not exist" : "is \(kind.described), not a folder"
            throw CommandFailure(.writeError, "\(name) \(found); give an existing folder")
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw CommandFailure(.writeError, "\(name) is not writable; give a folder you can write to")
        }
    }

    /// A folder made if missing (`--cache`): a folder, or nothing under a folder.
    static func folderOrNothing(_ path: String, option: String) throws(CommandFailure) {
        let kind = kind(of: path)
        if kind == .nothing { return try missingUnderFolder(path, option: option) }
        guard kind == .folder else {
            throw CommandFailure(.invalidInput, "\(option) \(path) is \(kind.described), not a folder; give a folder, or a path where one can be made")
        }
    }

    /// A database file made if missing (`--queue`): a regular file, or nothing under a folder.
    static func fileOrNothing(_ path: String, option: String) throws(CommandFailure) {
        let kind = kind(of: path)
        if kind == .nothing { return try missingUnderFolder(path, option: option) }
        guard kind == .file else {
            throw CommandFailure(.invalidInput, "\(option) \(path) is \(kind.described), not a regular file; give a database file, or a path where one can be made")
        }
    }

    /// Refuses a missing path whose nearest existing ancestor is not a folder, so that it could
    /// never be made.
    private static func missingUnderFolder(_ path: String, option: String) throws(CommandFailure) {
        let components = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        for count in stride(from: components.count - 1, through: 1, by: -1) {
            let ancestor = NSString.path(withComponents: Array(components.prefix(count)))
            let kind = kind(of: ancestor)
            if kind == .nothing { continue }
            guard kind == .folder else {
                throw CommandFailure(.invalidInput, "\(option) \(path): \(ancestor) is \(kind.described), not a folder, so nothing can be made there")
            }
            return
        }
    }
}
