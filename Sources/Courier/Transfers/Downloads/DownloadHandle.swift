import Foundation
import NIOConcurrencyHelpers

/// A download that is running: watch its progress, pause and resume it, stop it (keeping its
/// partial file) or cancel it (removing it), await its file.
///
/// ```swift
/// let handle = client.startDownload(CourierRequest<Data>(path: "/big.iso"), to: .directory(downloads))
/// Task { for await progress in handle.progress { print(progress) } }
/// handle.pause()      // the partial file and its resume record stay on disk
/// handle.resume()     // continues with a Range request
/// let file = try await handle.value.fileURL
/// ```
public final class DownloadHandle: Sendable {
    private let task: Task<DownloadResult, any Error>
    private let control: DownloadControl
    private let reporter: ProgressReporter

    init(task: Task<DownloadResult, any Error>, control: DownloadControl, reporter: ProgressReporter) {
        self.task = task
        self.control = control
        self.reporter = reporter
    }

    /// The download's progress, throttled like upload progress: the latest value first, if
    /// there is one, then each new one; a resumed download starts from the bytes on disk. The
    /// sequence ends when the download ends. Each access returns a new sequence.
    public var progress: AsyncStream<TransferProgress> { reporter.updates() }

    /// The finished download. While the download is paused this waits for ``resume()``.
    public var value: DownloadResult {
        get async throws { try await task.valueCancelledWithCaller }
    }

    /// Whether the download is paused.
    public var isPaused: Bool { control.isPaused }

    /// Stops the transfer and keeps the partial file and its resume record; ``resume()``
    /// continues it, and so does a later download of the same URL to the same destination,
    /// in this process or another.
    public func pause() { control.pause() }

    /// Continues a paused download from the bytes on disk.
    public func resume() { control.resume() }

    /// Ends the download and keeps its partial file and resume record, for a later download
    /// of the same URL to the same destination (in this process or another) to continue from
    /// the bytes on disk; awaiting ``value`` then throws ``CourierError/Kind/cancelled``.
    /// Cancelling the task that awaits a download does the same. Use it when the application
    /// quits, or the user stops a download that should not be lost.
    public func stop() { task.cancel() }

    /// Ends the download and removes its partial file and resume record, for a download the
    /// user no longer wants; awaiting ``value`` then throws ``CourierError/Kind/cancelled``.
    /// ``stop()`` keeps them instead.
    public func cancel() {
        control.markCancelled()
        task.cancel()
    }
}

/// The pause switch of a download and the attempt it stops.
final class DownloadControl: Sendable {
    private struct State {
        var isPaused = false
        var isCancelled = false
        var interruptedRunning = false
        var running: Task<DownloadResult, any Error>?
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = NIOLockedValueBox(State())

    var isPaused: Bool { state.withLockedValue { $0.isPaused } }
    var isCancelled: Bool { state.withLockedValue { $0.isCancelled } }

    func pause() {
        let running = state.withLockedValue { state in
            state.isPaused = true
            if state.running != nil { state.interruptedRunning = true }
            return state.running
        }
        running?.cancel()
    }

    func resume() {
        let waiter = state.withLockedValue { state in
            state.isPaused = false
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func markCancelled() {
        state.withLockedValue { $0.isCancelled = true }
        wake()
    }

    /// Lets a wait for ``resume()`` return, for a cancellation.
    private func wake() {
        let waiter = state.withLockedValue { state in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once the download is not paused, or is cancelled.
    func waitWhilePaused() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { state in
                    guard state.isPaused, !state.isCancelled, !Task.isCancelled else { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            self.wake()
        }
    }

    /// Whether a pause stopped the last run (even if a resume followed); clears the mark.
    func takeInterruption() -> Bool {
        state.withLockedValue { state in
            defer { state.interruptedRunning = false }
            return state.interruptedRunning
        }
    }

    /// Runs `attempt` as the task that ``pause()`` stops; at once cancelled if a pause came first.
    func run(_ attempt: Task<DownloadResult, any Error>) async throws -> DownloadResult {
        let pausedAlready = state.withLockedValue { state in
            state.running = attempt
            if state.isPaused { state.interruptedRunning = true }
            return state.isPaused
        }
        if pausedAlready { attempt.cancel() }
        defer { state.withLockedValue { $0.running = nil } }
        return try await attempt.valueCancelledWithCaller
    }
}

extension CourierClient {
    /// Starts downloading the response to `request` in a new task and returns its handle at
    /// once; see ``download(_:to:options:)-(CourierRequest<Value>,_,_)`` for what the download does.
    public func startDownload<Value>(
        _ request: CourierRequest<Value>, to destination: DownloadDestination, options: DownloadOptions = DownloadOptions()
    ) -> DownloadHandle {
        let reporter = ProgressReporter(callback: options.progress)
        let control = DownloadControl()
        let task = Task {
            defer { reporter.finish() }
            let built = try self.makeDownloadRequest(request)
            while true {
                await control.waitWhilePaused()
                if control.isCancelled { break }
                if Task.isCancelled {
                    throw CourierError(.cancelled, "The download was cancelled while paused; its partial file was kept.", url: built.url)
                }
                let attempt = Task {
                    try await self.download(built, to: destination, options: options, reporter: reporter, retryPolicy: request.retryPolicy)
                }
                do {
                    return try await control.run(attempt)
                } catch {
                    if control.isCancelled { break }
                    if control.takeInterruption() && !Task.isCancelled { continue }
                    throw error
                }
            }
            let working = destination.workingFiles(for: built.url)
            PartialFile.remove(working.partial)
            PartialFile.remove(working.record)
            throw CourierError(.cancelled, "The download was cancelled; its partial file was removed.", url: built.url)
        }
        return DownloadHandle(task: task, control: control, reporter: reporter)
    }
}
