import CourierPostgres
import Foundation
import Logging
import PostgresNIO

/// One connection that listens on the `courier_cache` channel for a memory tier, made again
/// after a pause whenever it is lost, until the listener is freed or stopped.
///
/// While it listens, each notification clears the key it names in ``RecentEntries`` (or
/// everything, for `*`); when it starts listening and when it loses the connection, everything
/// is cleared, and while it does not listen the memory tier is not read.
final class ChangeListener: Sendable {
    private let task: Task<Void, Never>

    init(location: PostgresLocation, recent: RecentEntries, logger: Logger) {
        task = Task {
            var failures = 0
            while !Task.isCancelled {
                do {
                    let connection = try await PostgresConnection.connect(
                        configuration: try location.connectionConfiguration(), id: 1, logger: logger
                    )
                    do {
                        try await connection.listen(on: CacheDatabase.channel) { notifications in
                            failures = 0
                            // Listening now: what changed before is not known, so nothing kept is trusted.
                            recent.forgetAll(isListening: true)
                            for try await notification in notifications {
                                if let keyHash = ChangeListener.keyHash(notification.payload) {
                                    recent.forget(keyHash: keyHash)
                                } else {
                                    recent.forgetAll(isListening: true)
                                }
                            }
                        }
                    } catch {
                        recent.forgetAll(isListening: false)
                        await closeAndWait(connection)
                        throw error
                    }
                    recent.forgetAll(isListening: false)
                    await closeAndWait(connection)
                } catch {
                    recent.forgetAll(isListening: false)
                    if Task.isCancelled { return }
                    failures += 1
                    logger.debug("courier cache: listening for changes failed", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: CacheDatabase.pause(after: failures))
            }
        }
    }

    deinit {
        task.cancel()
    }

    /// Stops listening.
    func stop() {
        task.cancel()
    }

    /// The key hash a notification's payload names in hexadecimal; `nil` for `*` or anything
    /// else, which clears everything.
    static func keyHash(_ payload: String) -> Data? {
        let digits = Array(payload.utf8)
        guard digits.count == 64 else { return nil }
        var bytes = Data(capacity: 32)
        var index = 0
        while index < digits.count {
            guard let high = value(of: digits[index]), let low = value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
