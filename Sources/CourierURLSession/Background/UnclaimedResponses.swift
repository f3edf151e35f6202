import Courier
import Foundation
import NIOConcurrencyHelpers

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The responses to upload tasks of the background session that no exchange waits for: the
/// system sent the file while the app was suspended or not running, and delivers the answer
/// at the next launch. Each body is written to a part file in the ledger as it arrives, and
/// kept open for the next identical upload once its task completes.
///
/// States of one task: writing (a part file, made 0600 at the first piece) → kept (completed
/// without error) or dropped (an error, a body past ``maximumBytes``, a file that cannot be
/// written: the part file is deleted and the task cancelled).
final class UnclaimedResponses: Sendable {
    /// The largest response body kept for an upload nobody waits for.
    static let maximumBytes: Int64 = 16 << 20

    private let ledger: TransferLedger
    private let writers = NIOLockedValueBox<[Int: PartWriter]>([:])

    init(ledger: TransferLedger) {
        self.ledger = ledger
    }

    /// Whether `task` is one of the ledger's, whose answer can be kept.
    func accepts(_ task: URLSessionTask) -> Bool {
        task.taskDescription.map(TransferLedger.isName) ?? false
    }

    /// Writes `data`, a piece of `task`'s response body; returns `false` when the response
    /// cannot be kept, in which case the task has nothing left to do.
    func append(_ data: Data, of task: URLSessionTask) -> Bool {
        guard let name = task.taskDescription, TransferLedger.isName(name) else { return false }
        let part = ledger.partFile(name)
        return writers.withLockedValue { writers in
            var writer = writers[task.taskIdentifier] ?? PartWriter()
            defer { writers[task.taskIdentifier] = writer }
            if writer.isDropped { return false }
            guard writer.append(data, to: part, limit: Self.maximumBytes) else {
                ledger.remove(name)
                return false
            }
            return true
        }
    }

    /// `task` completed, with `error` when it failed: its response is kept, or dropped.
    func complete(_ task: URLSessionTask, error: (any Error)?) {
        guard let name = task.taskDescription, TransferLedger.isName(name) else { return }
        var writer = writers.withLockedValue { $0.removeValue(forKey: task.taskIdentifier) } ?? PartWriter()
        writer.close()
        guard error == nil, !writer.isDropped, let response = task.response as? HTTPURLResponse,
            ledger.keep(writer.hasFile ? ledger.partFile(name) : nil, response: response, name: name, isClaimed: false) != nil
        else {
            return ledger.remove(name)
        }
    }
}
