import Courier
import Foundation

extension QueueOutcome: CustomStringConvertible {
    /// One line a person can read: `200 OK, 42 bytes`, `failed: connectionFailed: …`, or
    /// `not sent: missing Authorization`, then when it was recorded. Safe to print: text the
    /// server chose is escaped as ``PrintableText`` describes.
    public var description: String {
        let what: String
        if let missingCredentials, !missingCredentials.isEmpty {
            what = "not sent: missing " + missingCredentials.joined(separator: ", ")
        } else if let status {
            let reason = reasonPhrase.isEmpty ? "" : " " + reasonPhrase
            what = "\(status)\(reason), \(body.count) byte\(body.count == 1 ? "" : "s")"
        } else {
            what = "failed: " + (failure ?? "no response")
        }
        return PrintableText.escaping(what + " (recorded \(recordedAt.formatted(.iso8601)))")
    }
}

extension QueueRecord: CustomStringConvertible {
    /// One line a person can read: the record's id, state, request and attempts, and its
    /// outcome when it has one. Safe to print.
    public var description: String {
        var text = "\(id) \(state.rawValue): \(request.method.rawValue) \(request.url.absoluteString), \(attempts) attempt\(attempts == 1 ? "" : "s")"
        if let outcome { text += ", \(outcome)" }
        return PrintableText.escaping(text)
    }
}
