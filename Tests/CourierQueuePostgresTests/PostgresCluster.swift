import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL server for integration tests: a cluster of its own in a private temporary folder, listening only
/// on 127.0.0.1 at a free port, where the user `courier` connects without a password. Tests call `stop()` when done (`deinit`
/// does too, as a safety net); `kill()` and `restart()` simulate a crash and the recovery after it. As root, the server's
/// programs run as the `postgres` system user (through runuser), since PostgreSQL refuses to run as root.
final class PostgresCluster: Sendable {
    /// The only address the server listens on.
    let host = "127.0.0.1"
    /// The server's TCP port; restarts keep it.
    let port: Int
    /// The superuser made by `initdb`; it connects without a password.
    let username = "courier"
    /// The private temporary folder (mode 0700): the data directory `data`, the Unix socket and the server's log `server.log`.
    let folder: URL
    /// The postmaster's PID: the running server's, or the last one's once it was stopped or killed.
    var pid: Int32 { lock.withLock { state.pid } }

    /// Where the programs are, and how the server's programs run.
    private let tools: Tools
    /// Held while `state` is read or changed, and for the whole of a stop, kill or restart.
    private let lock = NSLock()
    /// The current server; guarded by `lock`.
    nonisolated(unsafe) private var state: State

    /// The current server: its postmaster, and the process started for it (the postmaster itself, or runuser above it).
    private struct State {
        /// The postmaster's PID.
        var pid: Int32
        /// The process started for the server, until the server ends.
        var launcher: Process?
        /// Whether the server runs (until a stop or kill).
        var running = true
        /// Whether `stop()` removed the folder.
        var removed = false
    }

    /// A cluster whose server runs: `server` is its postmaster's PID and the process started for it.
    private init(tools: Tools, folder: URL, port: Int, server: (pid: Int32, launcher: Process)) {
        self.tools = tools
        self.folder = folder
        self.port = port
        self.state = State(pid: server.pid, launcher: server.launcher)
    }

    /// Stops the server and removes its folder if the test did not.
    deinit { stop() }

    /// Makes a new cluster with `initdb` in a new temporary folder and starts its server at a free port (trying up to five
    /// ports, should another program take one first); returns once the server accepts connections.
    static func start() throws -> PostgresCluster {
        let tools = try Tools.find()
        var template = Array(FileManager.default.temporaryDirectory.appendingPathComponent("courier-pg-XXXXXX").path.utf8CString)
        guard mkdtemp(&template) != nil else { throw PostgresClusterError("cannot make a temporary folder: \(String(cString: strerror(errno)))") }
        let folder = URL(fileURLWithPath: template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, isDirectory: true)
        do {
            if let owner = tools.owner, chown(folder.path, owner.uid, owner.gid) != 0 {
                throw PostgresClusterError("cannot give \(folder.path) to the postgres user: \(String(cString: strerror(errno)))")
            }
            let log = folder.appendingPathComponent("initdb.log")
            let initdb = [tools.bin.appendingPathComponent("initdb").path, "-D", folder.appendingPathComponent("data").path]
            let options = ["--auth=trust", "--username=courier", "--encoding=UTF8", "--no-locale", "--no-sync"]
            let status = try run(tools.asServerUser + initdb + options, log: log, in: folder, seconds: 120)
            guard status == 0 else { throw PostgresClusterError("initdb failed (status \(status)):\n\(logTail(log))") }
            for attempt in 1...5 {
                let port = try freePort()
                do {
                    let server = try launchServer(tools, folder: folder, port: port, seconds: 30)
                    return PostgresCluster(tools: tools, folder: folder, port: port, server: server)
                } catch let error as PostgresClusterError where error.cause == .portTaken && attempt < 5 {}
            }
            throw PostgresClusterError("no free port found")
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Creates the database `name` (a plain identifier: letters, digits and underscores) with `createdb`.
    func createDatabase(_ name: String) throws {
        guard name.range(of: "^[A-Za-z_][A-Za-z0-9_]{0,62}$", options: .regularExpression) != nil else {
            throw PostgresClusterError("\"\(name)\" is not a plain identifier")
        }
        guard let createdb = tools.program("createdb") else { throw PostgresClusterError("createdb is not installed") }
        let log = folder.appendingPathComponent("commands.log")
        let start = fileSize(log)
        let status = try run([createdb, "-h", host, "-p", "\(port)", "-U", username, "-w", name], log: log, in: folder, seconds: 60)
        guard status == 0 else { throw PostgresClusterError("createdb \(name) failed (status \(status)):\n\(logTail(log, from: start))") }
    }

    /// Stops the server with a fast shutdown (SIGINT; SIGKILL after 20 s) and removes the folder. Calling it again does nothing.
    func stop() {
        lock.withLock {
            halt(SIGINT)
            if !state.removed {
                state.removed = true
                try? FileManager.default.removeItem(at: folder)
            }
        }
    }

    /// Simulates a crash: SIGKILL to the postmaster, then waits for the children it leaves behind to end (SIGKILL to those
    /// left after 20 s). The folder stays, for `restart()`.
    func kill() {
        lock.withLock { halt(SIGKILL) }
    }

    /// Starts the server again on the same data directory and port (after a fast shutdown if it still runs) and waits until
    /// it accepts connections, crash recovery included; `pid` then names the new postmaster.
    func restart() throws {
        try lock.withLock {
            guard !state.removed else { throw PostgresClusterError("the cluster was stopped and its folder removed") }
            halt(SIGINT)
            let deadline = Date().addingTimeInterval(30)
            while true {
                do {
                    let server = try Self.launchServer(tools, folder: folder, port: port, seconds: 30)
                    state = State(pid: server.pid, launcher: server.launcher)
                    return
                } catch let error as PostgresClusterError where error.cause == .oldServerLingers && Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.2)
                }
            }
        }
    }

    /// Ends the running server, keeping its files: `signal` (SIGINT: fast shutdown; SIGKILL: crash) to the postmaster, then
    /// waits for it and its children (found in /proc), SIGKILL to those left after 20 s. Called with `lock` held.
    private func halt(_ signal: Int32) {
        guard state.running else { return }
        let processes = [state.pid] + children(of: state.pid)
        sendSignal(state.pid, signal)
        if !waitUntil(20, { processes.allSatisfy(isGone) }) {
            for process in processes where !isGone(process) { sendSignal(process, SIGKILL) }
            _ = waitUntil(5) { processes.allSatisfy(isGone) }
        }
        // Foundation sees the launcher end (and reaps it) once every process that inherited its socket has ended.
        if let launcher = state.launcher { _ = waitUntil(5) { !launcher.isRunning } }
        state.launcher = nil
        state.running = false
    }

    /// Starts `postgres` on the data directory at `port` and waits (at most `seconds`) until it accepts connections.
    private static func launchServer(_ tools: Tools, folder: URL, port: Int, seconds: Double) throws -> (pid: Int32, launcher: Process) {
        let data = folder.appendingPathComponent("data")
        let log = folder.appendingPathComponent("server.log")
        let start = fileSize(log)
        let settings = ["listen_addresses=127.0.0.1", "unix_socket_directories=\(folder.path)", "max_connections=200"]
        let postgres = [tools.bin.appendingPathComponent("postgres").path, "-D", data.path, "-p", "\(port)"]
        let launcher = try launch(tools.asServerUser + postgres + settings.flatMap { ["-c", $0] }, log: log, in: folder)
        var pid: Int32?
        let ready = try waitUntil(seconds) {
            guard launcher.isRunning else {
                let tail = logTail(log, from: start)
                let lingers = tail.contains("pre-existing shared memory block") || tail.contains("lock file")
                let cause: PostgresClusterError.Cause = tail.contains("Address already in use") ? .portTaken : lingers ? .oldServerLingers : .other
                let status = launcher.terminationStatus
                throw PostgresClusterError("postgres exited while starting (status \(status)); its log ends with:\n\(tail)", cause)
            }
            // postmaster.pid may be the one a killed server left: only the PID of the process started here, or of its child
            // (under runuser), counts. The eighth line says "ready" once the server accepts connections.
            let file = try? String(contentsOf: data.appendingPathComponent("postmaster.pid"), encoding: .utf8)
            guard let lines = file?.components(separatedBy: "\n"), let found = Int32(lines[0]),
                found == launcher.processIdentifier || procStat(found)?.dropFirst().first == "\(launcher.processIdentifier)"
            else { return false }
            pid = found
            return lines.count > 7 && lines[7].trimmingCharacters(in: .whitespaces) == "ready" && tools.accepts(port)
        }
        if ready, let pid { return (pid, launcher) }
        for process in [pid, launcher.processIdentifier].compactMap(\.self) where !isGone(process) { sendSignal(process, SIGKILL) }
        _ = waitUntil(5) { !launcher.isRunning }
        throw PostgresClusterError("postgres did not accept connections within \(Int(seconds)) s; its log ends with:\n\(logTail(log, from: start))")
    }
}

/// A failure to find, start or use the throwaway PostgreSQL server, with what went wrong.
struct PostgresClusterError: Error, CustomStringConvertible {
    /// Why the server did not start, when a retry may help.
    enum Cause { case other, portTaken, oldServerLingers }

    /// What went wrong, in plain words (with the end of a log when it helps).
    let message: String
    /// Why the server did not start.
    let cause: Cause
    /// The message.
    var description: String { message }

    /// An error saying `message`.
    init(_ message: String, _ cause: Cause = .other) {
        self.message = message
        self.cause = cause
    }
}

/// Where the PostgreSQL programs are, and how the server's own programs run (as the `postgres` user when this process is root).
private struct Tools: Sendable {
    /// The folder of `initdb` and `postgres`, of one version.
    let bin: URL
    /// What runs a program as the `postgres` user (empty unless root).
    let asServerUser: [String]
    /// The `postgres` user's ids, when this process is root.
    let owner: (uid: uid_t, gid: gid_t)?

    /// Finds `initdb` in PATH, else in the newest /usr/lib/postgresql/*/bin, and `postgres` beside it.
    static func find() throws -> Tools {
        let files = FileManager.default
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let versions = (try? files.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newestFirst = versions.sorted { $0.compare($1, options: .numeric) == .orderedDescending }.map { "/usr/lib/postgresql/\($0)/bin" }
        guard let initdb = (path + newestFirst).map({ $0 + "/initdb" }).first(where: files.isExecutableFile(atPath:)) else {
            throw PostgresClusterError(
                "PostgreSQL's server is not installed (no initdb in PATH or /usr/lib/postgresql/*/bin): "
                    + "run `apt-get install -y postgresql`, as .ci/run does"
            )
        }
        let bin = URL(fileURLWithPath: initdb).resolvingSymlinksInPath().deletingLastPathComponent()
        guard files.isExecutableFile(atPath: bin.appendingPathComponent("postgres").path) else {
            throw PostgresClusterError("\(bin.path) has initdb but no postgres: PostgreSQL's server is installed only in part")
        }
        guard geteuid() == 0 else { return Tools(bin: bin, asServerUser: [], owner: nil) }
        guard let user = getpwnam("postgres") else {
            throw PostgresClusterError("PostgreSQL refuses to run as root, and there is no `postgres` user to run it as (its package makes one)")
        }
        guard let runuser = ["/usr/sbin/runuser", "/sbin/runuser"].first(where: files.isExecutableFile(atPath:)) else {
            throw PostgresClusterError("PostgreSQL refuses to run as root, and runuser (util-linux) is missing to run it as `postgres`")
        }
        return Tools(bin: bin, asServerUser: [runuser, "-u", "postgres", "--"], owner: (user.pointee.pw_uid, user.pointee.pw_gid))
    }

    /// The program `name` beside `initdb`, else in PATH.
    func program(_ name: String) -> String? {
        let folders = [bin.path] + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return folders.map { URL(fileURLWithPath: $0).appendingPathComponent(name).path }.first(where: FileManager.default.isExecutableFile(atPath:))
    }

    /// Whether the server at 127.0.0.1:`port` accepts connections: by `pg_isready` when installed, else by a TCP connection.
    func accepts(_ port: Int) -> Bool {
        guard let pgIsReady = program("pg_isready") else { return canConnect(port) }
        let command = [pgIsReady, "-q", "-h", "127.0.0.1", "-p", "\(port)", "-U", "courier", "-d", "postgres", "-t", "3"]
        return (try? run(command, log: nil, in: nil, seconds: 5)) == 0
    }
}

/// Held while a child process starts: Foundation's `Process.run()` is not known to be safe from several threads at once.
private let launches = NSLock()

/// Starts `command` (a program's path, then its arguments) in `folder`, with its output appended to `log` (or discarded), in
/// the C locale and without this process's PG* variables, which could point it elsewhere.
private func launch(_ command: [String], log: URL?, in folder: URL?) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    if let folder { process.currentDirectoryURL = folder }
    process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }.merging(["LC_ALL": "C"]) { $1 }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    if let log {
        let descriptor = open(log.path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard descriptor >= 0 else { throw PostgresClusterError("cannot open \(log.path): \(String(cString: strerror(errno)))") }
        let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        process.standardOutput = output
        process.standardError = output
    }
    try launches.withLock { try process.run() }
    return process
}

/// Runs `command` (see `launch`) to its end, killing it after `seconds`; returns its exit status.
private func run(_ command: [String], log: URL?, in folder: URL?, seconds: Double) throws -> Int32 {
    let process = try launch(command, log: log, in: folder)
    guard waitUntil(seconds, { !process.isRunning }) else {
        if process.isRunning { sendSignal(process.processIdentifier, SIGKILL) }
        _ = waitUntil(2) { !process.isRunning }
        throw PostgresClusterError("`\(command.joined(separator: " "))` did not finish within \(Int(seconds)) s")
    }
    return process.terminationStatus
}

/// Checks `done` every 50 ms until it holds (true) or `seconds` pass (false).
private func waitUntil(_ seconds: Double, _ done: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while try !done() {
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return true
}

/// Sends `signal` to the process `pid`.
private func sendSignal(_ pid: Int32, _ signal: Int32) {
    _ = kill(pid, signal)
}

/// The fields of /proc/`pid`/stat after the program's name: state, parent PID, … (nil without /proc or such a process).
private func procStat(_ pid: Int32) -> [Substring]? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"), let end = data.lastIndex(of: UInt8(ascii: ")")) else { return nil }
    return String(decoding: data[(end + 1)...], as: UTF8.self).split(separator: " ")
}

/// Whether the process `pid` has ended; a zombie has (orphans may wait a while for init to reap them).
private func isGone(_ pid: Int32) -> Bool {
    (kill(pid, 0) != 0 && errno == ESRCH) || procStat(pid)?.first == "Z"
}

/// The PIDs of the children of the process `pid`, from /proc (none without it).
private func children(of pid: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { Int32($0) }.filter { procStat($0)?.dropFirst().first == "\(pid)" }
}

/// The size of the file at `url` (0 when there is none).
private func fileSize(_ url: URL) -> Int {
    FileManager.default.contents(atPath: url.path)?.count ?? 0
}

/// The last 20 lines of the file at `url`, from byte `offset` on.
private func logTail(_ url: URL, from offset: Int = 0) -> String {
    let text = String(decoding: (FileManager.default.contents(atPath: url.path) ?? Data()).dropFirst(offset), as: UTF8.self)
    return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(20).joined(separator: "\n")
}

/// Calls `body` with a new TCP socket (closed afterwards) and the address 127.0.0.1:`port`, or returns nil without a socket.
private func withLoopbackSocket<T>(port: Int, _ body: (Int32, UnsafeMutablePointer<sockaddr>) -> T) -> T? {
    #if canImport(Glibc)
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var address = sockaddr_in()
    #if canImport(Darwin)
    address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
    return withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body(descriptor, $0) } }
}

/// A TCP port free on 127.0.0.1 now: the one the system gives a socket bound to port 0, closed again.
private func freePort() throws -> Int {
    let port = withLoopbackSocket(port: 0) { descriptor, address -> Int? in
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard bind(descriptor, address, length) == 0, getsockname(descriptor, address, &length) == 0 else { return nil }
        return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
    }
    guard let port = port ?? nil else { throw PostgresClusterError("cannot find a free port: \(String(cString: strerror(errno)))") }
    return port
}

/// Whether something accepts TCP connections at 127.0.0.1:`port`.
private func canConnect(_ port: Int) -> Bool {
    withLoopbackSocket(port: port) { connect($0, $1, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 } ?? false
}
