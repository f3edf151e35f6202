import Foundation

/// Allocation counts, read from the counter library (`CAllocationCounter`) when this process
/// was started with it preloaded; `courier-bench --allocations` starts itself again that way.
enum Allocations {
    private typealias Action = @convention(c) () -> Void
    private typealias Reading = @convention(c) () -> Int

    private struct Counter {
        var start: Action
        var stop: Action
        var count: Reading
        var bytes: Reading
    }

    /// The library's file name, beside this executable once the package is built.
    static let library = "libCourierAllocationCounter.so"

    private static let counter: Counter? = {
        let process = dlopen(nil, RTLD_NOW)
        guard let start = dlsym(process, "courier_allocations_start"), let stop = dlsym(process, "courier_allocations_stop"),
            let count = dlsym(process, "courier_allocations_count"), let bytes = dlsym(process, "courier_allocations_bytes")
        else { return nil }
        return Counter(
            start: unsafeBitCast(start, to: Action.self), stop: unsafeBitCast(stop, to: Action.self),
            count: unsafeBitCast(count, to: Reading.self), bytes: unsafeBitCast(bytes, to: Reading.self)
        )
    }()

    /// Whether allocations are counted in this process.
    static var areCounted: Bool { counter != nil }

    /// Starts counting from zero.
    static func start() { counter?.start() }

    /// Stops counting and returns the allocations and bytes since ``start()``.
    static func stop() -> (count: Int, bytes: Int)? {
        guard let counter else { return nil }
        counter.stop()
        return (counter.count(), counter.bytes())
    }

    /// Runs this executable again with the same arguments and the counter preloaded, and
    /// returns its exit status.
    static func rerunCounting() throws -> Int32 {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        let path = folder + "/" + library
        guard FileManager.default.fileExists(atPath: path) else {
            throw HarnessError("no \(library) beside courier-bench; build the whole package: swift build -c release --package-path Benchmarks")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = Array(CommandLine.arguments.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = path
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The environment for a child that must not count: this one without the preload.
    static var environmentWithoutCounter: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = nil
        return environment
    }
}
