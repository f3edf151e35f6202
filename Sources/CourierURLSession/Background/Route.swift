import Courier
import Foundation
import NIOConcurrencyHelpers

extension CourierURLSessionTransport {
    /// Where an exchange's task runs: a data task of the transport's session, or an upload
    /// task of the background session that sends the request's file itself.
    enum Route: Sendable {
        case data
        /// An upload task of `background` that sends `file`, named `name` (see
        /// ``TransferLedger/name(for:)``).
        case upload(URL, name: String, on: BackgroundSession)

        /// Whether the request carries its body; an upload task takes it from the file.
        var sendsBody: Bool {
            if case .upload = self { return false }
            return true
        }

        /// What tells `body`'s watchers of the bytes an upload task has sent in all; `nil` for a
        /// data task, whose body is counted as the session reads it. A total below one already
        /// reported moves nothing.
        func reportsSent(of body: CourierRequestBody?) -> (@Sendable (Int64) -> Void)? {
            guard case .upload = self, let body else { return nil }
            let reported = NIOLockedValueBox<Int64>(0)
            return { sent in
                let count = reported.withLockedValue { reported in
                    defer { reported = max(reported, sent) }
                    return sent - reported
                }
                if count > 0 { body.reportSent(count, sent: sent) }
            }
        }
    }
}
