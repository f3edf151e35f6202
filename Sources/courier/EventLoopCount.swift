import NIOCore

/// How many event loops the process starts: one for the commands that send one request at a
/// time, the machine's core count for those that send many at once.
///
/// SwiftNIO's shared event loop group starts a thread per core when first used; a command that
/// sends a single request needs one, and starting the others costs more than the request on a
/// machine with many cores. `NIO_SINGLETON_GROUP_LOOP_COUNT`, when set, is left to decide.
enum EventLoopCount {
    /// The commands that keep many requests in flight.
    static let concurrentCommands: Set<String> = ["batch", "queue", "demo"]

    /// The loop count for `arguments` (the command line without the program's name), or `nil`
    /// to leave SwiftNIO's default.
    static func suggestion(for arguments: [String], environment: [String: String]) -> Int? {
        guard environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] == nil else { return nil }
        guard let command = arguments.first, !concurrentCommands.contains(command) else { return nil }
        return 1
    }

    /// Applies ``suggestion(for:environment:)``; called once, first thing in `main`, before
    /// anything uses the shared event loops (SwiftNIO allows setting it only then, and once).
    static func configure(for arguments: [String], environment: [String: String]) {
        if let count = suggestion(for: arguments, environment: environment) {
            NIOSingletons.groupLoopCountSuggestion = count
        }
    }
}
