import Foundation

/// What one finished child process cost, from the kernel's own accounting (`wait4`).
struct ChildRun {
    var wallSeconds: Double
    var cpuSeconds: Double
    /// The child's peak resident set, in MiB.
    var peakMiB: Double
    var exitStatus: Int32

    /// Runs `arguments` (the first is an absolute path) with stdout and stderr sent to /dev/null,
    /// or left as they are when `keepingOutput`, and waits for it.
    static func run(_ arguments: [String], keepingOutput: Bool = false) throws -> ChildRun {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if !keepingOutput {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { throw HarnessError("could not start \(arguments[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
        let wall = ContinuousClock.now - start
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return ChildRun(
            wallSeconds: Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18,
            cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
            peakMiB: Double(usage.ru_maxrss) / 1024,
            exitStatus: (status >> 8) & 0xff
        )
    }
}

/// The absolute path of `name` on `PATH`.
func executablePath(_ name: String) -> String? {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Throws unless `courier` is the path of an executable, saying how to build one.
func requireExecutable(_ courier: String) throws {
    guard FileManager.default.isExecutableFile(atPath: courier) else {
        throw HarnessError("no courier executable at \(courier); build it with `swift build -c release --package-path Benchmarks --product courier`, or pass --courier PATH")
    }
}
