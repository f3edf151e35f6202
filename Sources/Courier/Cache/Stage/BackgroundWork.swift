import NIOConcurrencyHelpers

/// The tasks a cache starts on its own (refreshes for `stale-while-revalidate`), kept so that
/// a client can wait for them before it shuts down.
final class BackgroundWork: Sendable {
    private let state = NIOLockedValueBox<(next: Int, tasks: [Int: Task<Void, Never>])>((0, [:]))

    /// How many rounds ``waitForAll()`` waits at most for work started while it waits.
    static let maximumRounds = 1000

    /// Starts `operation` and keeps its task until it ends.
    func start(_ operation: @escaping @Sendable () async -> Void) {
        state.withLockedValue { state in
            let id = state.next
            state.next += 1
            state.tasks[id] = Task {
                await operation()
                self.finished(id)
            }
        }
    }

    /// The number of tasks still running.
    var running: Int { state.withLockedValue { $0.tasks.count } }

    /// Waits until every task has ended, those started meanwhile included.
    func waitForAll() async {
        for _ in 0..<BackgroundWork.maximumRounds {
            let tasks = state.withLockedValue { Array($0.tasks.values) }
            guard !tasks.isEmpty else { return }
            for task in tasks { await task.value }
        }
    }

    private func finished(_ id: Int) {
        _ = state.withLockedValue { $0.tasks.removeValue(forKey: id) }
    }
}
