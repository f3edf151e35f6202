import Courier
import Foundation
import NIOConcurrencyHelpers

/// Draws a transfer's progress, a download's or an upload's: a redrawn bar on a terminal
/// (bytes, rate, time left), plain lines on stderr otherwise, one per tenth of the file (or per 10 MiB when the length is
/// unknown) and one at the end. With a quiet start, nothing is drawn before that instant, so
/// a short transfer leaves no line behind.
final class TransferProgressLine: Sendable {
    private struct State {
        var start: (bytes: Int64, at: ContinuousClock.Instant)?
        var lastDrawn: ContinuousClock.Instant?
        var lastStep: Int64 = -1
        var isLineOpen = false
    }

    private let output: Output
    private let now: @Sendable () -> ContinuousClock.Instant
    private let quietUntil: ContinuousClock.Instant?
    private let state = NIOLockedValueBox(State())

    init(output: Output, quietUntil: ContinuousClock.Instant? = nil, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.output = output
        self.quietUntil = quietUntil
        self.now = now
    }

    func update(_ progress: TransferProgress) {
        let instant = now()
        let text = state.withLockedValue { state -> String? in
            guard let start = state.start else {
                // The first value sets the origin of the rate: a resumed download counts only
                // what this run transfers.
                state.start = (progress.completedBytes, instant)
                return output.progress == nil || quietUntil.map({ instant < $0 }) == true ? nil : Self.describe(progress, rate: nil)
            }
            if let quietUntil, instant < quietUntil { return nil }
            let elapsed = instant - start.at
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let rate = seconds > 0 ? Double(progress.completedBytes - start.bytes) / seconds : nil
            if output.progress != nil {
                guard progress.isComplete || state.lastDrawn.map({ instant - $0 >= .milliseconds(100) }) ?? true else { return nil }
                state.lastDrawn = instant
                state.isLineOpen = true
                return Self.describe(progress, rate: rate)
            }
            let step = progress.totalBytes.map { total in total > 0 ? progress.completedBytes * 10 / total : 10 } ?? progress.completedBytes / (10 << 20)
            guard step > state.lastStep else { return nil }
            state.lastStep = step
            return Self.describe(progress, rate: rate)
        }
        guard let text else { return }
        if let draw = output.progress {
            draw(text)
        } else {
            output.error(text)
        }
    }

    /// Ends the redrawn line, if one is open, so that what follows starts on a new line.
    func finishLine() {
        let open = state.withLockedValue { state in
            defer { state.isLineOpen = false }
            return state.isLineOpen
        }
        if open, let draw = output.progress { draw("\n") }
    }

    /// `12.0 MiB of 100.0 MiB (12 %), 4.0 MiB/s, 0:22 left`.
    static func describe(_ progress: TransferProgress, rate: Double?) -> String {
        var text = bytes(progress.completedBytes)
        if let total = progress.totalBytes {
            text += " of \(bytes(total)) (\(Int((progress.fractionCompleted ?? 0) * 100)) %)"
        }
        if let rate, rate > 0 {
            text += ", \(bytes(Int64(rate)))/s"
            if let total = progress.totalBytes, total > progress.completedBytes {
                // A length or a rate from the network may be absurd: past 99 hours, say so instead.
                let seconds = (Double(total - progress.completedBytes) / rate).rounded(.up)
                if seconds.isFinite, seconds < 100 * 3600 {
                    let left = Int(seconds)
                    text += ", \(left / 60):\(String(format: "%02d", left % 60)) left"
                } else {
                    text += ", more than 99 hours left"
                }
            }
        }
        return text
    }

    /// `512 B`, `1.5 KiB`, `12.0 MiB`, `1.2 GiB`.
    static func bytes(_ count: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard count >= 1024 else { return "\(count) B" }
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f", value) + " " + units[unit]
    }
}
