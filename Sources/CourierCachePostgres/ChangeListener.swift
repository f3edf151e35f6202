import CourierPostgres
import Foundation
import Logging

/// The memory tier's listener on the `courier_cache` channel (a ``ChannelListener``).
///
/// While it listens, each notification clears the key it names in ``RecentEntries`` (or
/// everything, for `*`); when it starts listening and when it loses the connection, everything
/// is cleared, and while it does not listen the memory tier is not read.
enum ChangeListener {
    /// Starts listening for `recent`.
    static func start(location: PostgresLocation, recent: RecentEntries, logger: Logger) -> ChannelListener {
        ChannelListener(
            location: location, channel: CacheSchema.channel, logger: logger,
            // Listening now: what changed before is not known, so nothing kept is trusted.
            listening: { recent.forgetAll(isListening: true) },
            heard: { payload in
                if let keyHash = ChangeListener.keyHash(payload) {
                    recent.forget(keyHash: keyHash)
                } else {
                    recent.forgetAll()
                }
            },
            lost: { recent.forgetAll(isListening: false) }
        )
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
