import Courier
import Foundation
import NIOConcurrencyHelpers

/// The memory tier of a ``PostgresCacheStorage``: what the database answered for recently read
/// keys, bounded by bytes, the least recently used dropped first.
///
/// It is only as fresh as the notifications it hears: the store clears a key when the
/// `courier_cache` channel names it, clears everything when the channel says `*` or when the
/// listening connection is lost, and reads nothing from here while no connection listens.
/// A read that overlapped a notification is not kept (``keep(_:forKey:ifUnchangedSince:)``),
/// so that an answer read before a change cannot outlive the change's notification.
final class RecentEntries: Sendable {
    private struct Slot {
        var entries: [CourierCacheEntry]
        var cost: Int
        var lastUse: UInt64
    }

    private struct State {
        var slots: [Data: Slot] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        /// Counts every change heard, so that a read can tell whether one came during it.
        var changes: UInt64 = 0
        var isListening = false
    }

    let maximumBytes: Int
    private let state = NIOLockedValueBox(State())

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    /// The count of changes heard so far, to pass to ``keep(_:forKey:ifUnchangedSince:)``.
    var changeCount: UInt64 { state.withLockedValue { $0.changes } }

    /// The entries kept for the key with `keyHash`; `nil` when none are, or while nobody listens.
    func entries(forKeyHash keyHash: Data) -> [CourierCacheEntry]? {
        state.withLockedValue { state in
            guard state.isListening, var slot = state.slots[keyHash] else { return nil }
            state.clock += 1
            slot.lastUse = state.clock
            state.slots[keyHash] = slot
            return slot.entries
        }
    }

    /// Keeps `entries`, read from the database, for the key with `keyHash`, unless a change was
    /// heard since `count` (``changeCount`` before the read) or nobody listens.
    func keep(_ entries: [CourierCacheEntry], forKeyHash keyHash: Data, ifUnchangedSince count: UInt64) {
        let cost = entries.reduce(0) { $0 + $1.cost }
        guard cost <= maximumBytes / 4 else { return }
        state.withLockedValue { state in
            guard state.isListening, state.changes == count else { return }
            state.clock += 1
            if let old = state.slots.updateValue(Slot(entries: entries, cost: cost, lastUse: state.clock), forKey: keyHash) {
                state.bytes -= old.cost
            }
            state.bytes += cost
            guard state.bytes > maximumBytes else { return }
            // The least recently used go until nine tenths of the bound remain.
            let target = maximumBytes / 10 * 9
            for (hash, slot) in state.slots.sorted(by: { $0.value.lastUse < $1.value.lastUse }) where state.bytes > target {
                state.slots[hash] = nil
                state.bytes -= slot.cost
            }
        }
    }

    /// Forgets the key with `keyHash`: a change was heard or made.
    func forget(keyHash: Data) {
        state.withLockedValue { state in
            state.changes += 1
            if let old = state.slots.removeValue(forKey: keyHash) { state.bytes -= old.cost }
        }
    }

    /// Forgets everything; and whether anybody listens is now `isListening`, when given.
    func forgetAll(isListening: Bool? = nil) {
        state.withLockedValue { state in
            state.changes += 1
            state.slots.removeAll()
            state.bytes = 0
            if let isListening { state.isListening = isListening }
        }
    }
}
