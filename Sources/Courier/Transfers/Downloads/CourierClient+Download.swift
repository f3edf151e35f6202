import Foundation
import NIOConcurrencyHelpers

extension CourierClient {
    /// Downloads the response to `request` into a file, streaming it to disk in bounded memory.
    ///
    /// The body goes to a partial file beside the destination, with a small resume record; the
    /// file is moved into place only once its length and any digest the server announced
    /// (`Repr-Digest`, `Digest`, `Content-MD5`) check out. A dropped connection, a timeout or a
    /// retryable status is retried by the retry policy (the request's, else the client's), as
    /// for any request, and each retry resumes from the bytes on disk (`Range` with
    /// `If-Range`); a download cancelled or interrupted for good keeps its partial file, and a
    /// later call with the same URL and destination continues it, in this process or another.
    /// The file is left to the operating system to write out, as curl leaves it:
    /// it is not forced to disk (`fsync`) before it is placed, which on a disk slower than the
    /// network would hold the call until every byte is written out. Synchronize the file
    /// yourself (`FileHandle.synchronize()`) if it must survive a power cut.
    ///
    /// The download takes the path every request takes: the base URL and default headers,
    /// interceptors, the client's credentials (basic, digest, bearer) with their cross-origin
    /// rules, cookies, redirects, the scheduler's limits (the slot is held for the whole
    /// transfer), the retry policy and observers. Validators do not apply: the download checks
    /// the status itself. A request's ``CourierRequest/timeout`` bounds the whole download, every
    /// resume included; the configuration's total timeout does not apply (a large file may take
    /// longer than any one request should), the read timeout does.
    ///
    /// With a cache, a download with nothing on disk starts from what the cache holds: a stored
    /// response it may deliver is the file, and stored first bytes with a strong entity tag are
    /// continued from the server with `If-Range`. The download does not write the cache.
    ///
    /// - Throws: ``CourierError``: ``CourierError/Kind/validationFailed`` for a status other
    ///   than 200, 206 or 416; ``CourierError/Kind/invalidDestination``,
    ///   ``CourierError/Kind/resumeMismatch`` and ``CourierError/Kind/integrityCheckFailed`` as
    ///   their descriptions say; ``CourierError/Kind/responseTooLarge`` past
    ///   ``DownloadOptions/maximumBytes``; the transport's kinds once every attempt failed.
    public func download<Value>(
        _ request: CourierRequest<Value>, to destination: DownloadDestination, options: DownloadOptions = DownloadOptions()
    ) async throws -> DownloadResult {
        let reporter = ProgressReporter(callback: options.progress)
        defer { reporter.finish() }
        return try await download(makeDownloadRequest(request), to: destination, options: options, reporter: reporter, retryPolicy: request.retryPolicy)
    }

    /// Downloads the response to a fully built request into a file, as
    /// ``download(_:to:options:)-(CourierRequest<Value>,_,_)`` does, with no base URL or default headers applied.
    public func download(
        _ request: CourierHTTPRequest, to destination: DownloadDestination, options: DownloadOptions = DownloadOptions()
    ) async throws -> DownloadResult {
        let reporter = ProgressReporter(callback: options.progress)
        defer { reporter.finish() }
        return try await download(request, to: destination, options: options, reporter: reporter)
    }

    /// The request a download sends: built like any other, but asking for the bytes as stored
    /// (so lengths and ranges count the file's bytes) and bounded only by its own timeout.
    func makeDownloadRequest<Value>(_ request: CourierRequest<Value>) throws(CourierError) -> CourierHTTPRequest {
        var request = request
        if !request.headers.contains("Accept-Encoding") {
            request.headers.add(name: "Accept-Encoding", value: "identity")
        }
        var built = try makeHTTPRequest(request, id: CourierRequestID())
        built.timeout = request.timeout
        return built
    }

    /// What one attempt ended with, when it did not throw.
    private enum AttemptOutcome: Sendable {
        case finished(DownloadResult)
        case startOver
    }

    /// What is on disk as an attempt leaves it, thrown or not.
    private struct DiskState: Sendable {
        /// The resume record, once a response chose the file.
        var record: ResumeRecord?
        /// The byte the attempt's body is written from.
        var offset: Int64 = 0
        /// Whether the bytes before `offset` came from the cache in this attempt.
        var fromCache = false
        /// Attempts made so far in this call.
        var attempts = 0
    }

    func download(
        _ request: CourierHTTPRequest, to destination: DownloadDestination, options: DownloadOptions, reporter: ProgressReporter,
        retryPolicy: CourierRetryPolicy? = nil
    ) async throws -> DownloadResult {
        try checkNotShutDown()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: destination.folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw CourierError(.invalidDestination, "The folder \(destination.folder.path) does not exist; create it first.", url: request.url)
        }
        if case .file(let file) = destination, !options.overwritesExistingFile, PartialFile.exists(file) {
            throw PartialFile.existing(file).with(url: request.url)
        }
        let working = destination.workingFiles(for: request.url)
        var record = options.resumesPartialDownload ? ResumeRecord.load(from: working.record) : nil
        if record?.isRecord(of: request.url) != true { record = nil }
        if record == nil { PartialFile.remove(working.partial, working.record) }
        var policy = retryPolicy ?? configuration.retryPolicy
        if let cap = options.maximumAttempts { policy.maximumAttempts = max(1, min(policy.maximumAttempts, cap)) }
        let disk = NIOLockedValueBox(DiskState(record: record))
        // One call sends the attempts, so the retry policy and the call's deadline govern the
        // resumes as they govern any retry. A second pass starts from zero, once, when what
        // was on disk (or in the cache) did not continue into what the server sent.
        var passes = 0
        while true {
            passes += 1
            do {
                let outcome = try await downloadPass(
                    request, disk: disk, destination: destination, working: working, options: options, reporter: reporter, policy: policy
                )
                switch outcome {
                case .finished(let result):
                    return result
                case .startOver:
                    disk.withLockedValue { $0.record = nil }
                    PartialFile.remove(working.partial, working.record)
                    guard passes < 2 else {
                        throw CourierError(.resumeMismatch, "The server refused to continue the partial file, and again after starting over; download again.", url: request.url)
                    }
                }
            } catch {
                let state = disk.withLockedValue { $0 }
                let failure = CourierClient.classify(error, url: request.url)
                let kind = (failure as? CourierError)?.kind
                let mismatch = kind == .resumeMismatch || kind == .integrityCheckFailed
                if mismatch || kind == .responseTooLarge {
                    disk.withLockedValue { $0.record = nil }
                    PartialFile.remove(working.partial, working.record)
                    // The stored bytes did not continue into what the server sent: start again
                    // from the server alone.
                    if state.fromCache, mismatch, passes < 2 { continue }
                }
                throw failure
            }
        }
    }

    /// One call on the request path for a download: every attempt continues from what the
    /// last left on disk (`Range` with `If-Range`), as the retry policy allows.
    private func downloadPass(
        _ request: CourierHTTPRequest, disk: NIOLockedValueBox<DiskState>, destination: DownloadDestination,
        working: (partial: URL, record: URL), options: DownloadOptions, reporter: ProgressReporter, policy: CourierRetryPolicy
    ) async throws -> AttemptOutcome {
        try await performStreaming(id: request.id, validators: [], retryPolicy: policy, resumes: true) { streamed in
            var current = disk.withLockedValue { $0 }
            defer { disk.withLockedValue { [current] in $0.record = current.record } }
            return try await self.receive(
                streamed, requestURL: request.url, offset: current.offset, record: &current.record, destination: destination,
                working: working, options: options, reporter: reporter, attempts: current.attempts
            )
        } prepare: { attempt in
            // What the last attempt left on disk decides where this one starts.
            let offset = disk.withLockedValue { state -> Int64 in
                state.attempts += 1
                state.fromCache = false
                let onDisk = state.record == nil ? 0 : (PartialFile.length(of: working.partial) ?? 0)
                state.offset = state.record?.validator == nil ? 0 : onDisk
                if state.offset > 0, let validator = state.record?.validator {
                    attempt.headers.set(name: "Range", value: "bytes=\(state.offset)-")
                    attempt.headers.set(name: "If-Range", value: validator)
                }
                return state.offset
            }
            attempt.isFileDownload = true
            attempt.reportsReceived = { received, expected in
                reporter.received(offset + received, of: expected.map { offset + $0 })
            }
        } send: { sent, sink in
            // Only the first attempt of a download with nothing on disk looks in the cache.
            let startsFromCache = self.cache != nil && disk.withLockedValue { $0.attempts == 1 && $0.offset == 0 }
            do {
                guard startsFromCache else { return try await self.hops(sent) { try await sink.consume($0) } }
                return try await self.sendFromCache(sent, sink: sink, requestURL: request.url, disk: disk, destination: destination, working: working)
            } catch {
                // Kept for the next attempt, or for a later call.
                if var kept = disk.withLockedValue({ $0.record }) {
                    kept.bytesReceived = PartialFile.length(of: working.partial) ?? 0
                    try? kept.save(to: working.record)
                }
                throw error
            }
        } build: { () throws(CourierError) in
            request
        }
    }

    /// Sends the first attempt of a download that has nothing on disk, starting from what the
    /// cache holds for it (see ``HTTPCache/downloadStart(for:identity:)``): a stored response
    /// the cache may deliver is the answer; stored first bytes are written to the partial file
    /// and the server is asked for the rest, with `If-Range`.
    private func sendFromCache(
        _ attempt: CourierHTTPRequest, sink: StreamSink<AttemptOutcome>, requestURL: URL, disk: NIOLockedValueBox<DiskState>,
        destination: DownloadDestination, working: (partial: URL, record: URL)
    ) async throws -> CourierResponse {
        var attempt = attempt
        if let cache, let start = await cache.downloadStart(for: attempt, identity: try await credentialIdentity(for: attempt)) {
            switch start {
            case .stored(let response), .unavailable(let response):
                return try await sink.consume(StreamedResponse(whole: response))
            case .prefix(let prefix):
                // A prefix that cannot be written is not used: the server sends the whole file.
                if let record = try? seed(working, with: prefix, requestURL: requestURL, fileURL: attempt.url, destination: destination) {
                    disk.withLockedValue {
                        $0.record = record
                        $0.offset = record.bytesReceived
                        $0.fromCache = true
                    }
                    attempt.headers.set(name: "Range", value: "bytes=\(record.bytesReceived)-")
                    attempt.headers.set(name: "If-Range", value: prefix.entityTag)
                }
            }
        }
        return try await hops(attempt) { try await sink.consume($0) }
    }

    /// Writes the cache's first bytes of the file as a new partial file, with its resume record.
    private func seed(
        _ working: (partial: URL, record: URL), with prefix: HTTPCache.StoredPrefix, requestURL: URL, fileURL: URL,
        destination: DownloadDestination
    ) throws(CourierError) -> ResumeRecord {
        var fileName: String?
        if case .directory = destination {
            fileName = try DownloadFileName.name(contentDisposition: prefix.headers["Content-Disposition"], url: fileURL)
        }
        let partial = try PartialFile.open(at: working.partial, from: 0)
        try partial.write(prefix.bytes)
        let record = ResumeRecord(
            for: requestURL, entityTag: prefix.entityTag, lastModified: nil, bytesReceived: partial.length,
            totalBytes: prefix.total, fileName: fileName
        )
        try record.save(to: working.record)
        return record
    }

    /// Handles the answer to one attempt: checks it continues what is on disk, writes its
    /// body, and places the file when it is complete.
    private func receive(
        _ streamed: StreamedResponse, requestURL: URL, offset: Int64, record: inout ResumeRecord?, destination: DownloadDestination,
        working: (partial: URL, record: URL), options: DownloadOptions, reporter: ProgressReporter, attempts: Int
    ) async throws -> AttemptOutcome {
        let head = streamed.head
        let encoding = head.headers["Content-Encoding"]?.lowercased()
        let isEncoded = encoding != nil && encoding != "identity"
        let decision = ResumeDecision.evaluate(
            status: head.status, contentRange: head.headers["Content-Range"],
            contentLength: head.headers.contentLength,
            isEncoded: isEncoded, offset: offset, expectedTotal: record?.totalBytes
        )
        let writeOffset: Int64
        let total: Int64?
        switch decision {
        case .fail(let status):
            throw CourierError(
                .validationFailed, "The server answered \(status) \(head.reasonPhrase) instead of the file; check the URL and your access to it.",
                url: head.url, response: head
            )
        case .reject(let reason):
            throw CourierError(
                .resumeMismatch, reason + " The partial file was discarded; download again to start from zero.", url: head.url, response: head
            )
        case .startOver:
            return .startOver
        case .complete(let length):
            guard PartialFile.length(of: working.partial) == length else { return .startOver }
            let file = try finalURL(destination, record: record, head: head, offset: offset, overwrite: options.overwritesExistingFile)
            reporter.begin(total: length, completed: length)
            reporter.end()
            return .finished(try place(working, at: file, head: head, bytes: length, options: options, attempts: attempts))
        case .write(let from, let length):
            writeOffset = from
            total = length
        }
        if let limit = options.maximumBytes, let total, total > limit { throw Self.tooLarge(limit, head: head) }

        let file = try finalURL(destination, record: record, head: head, offset: writeOffset, overwrite: options.overwritesExistingFile)
        if writeOffset == 0 || record == nil {
            record = ResumeRecord(
                for: requestURL,
                entityTag: head.headers["ETag"].flatMap { $0.hasPrefix("W/") ? nil : $0 },
                lastModified: head.headers["Last-Modified"],
                bytesReceived: 0,
                fileName: file.lastPathComponent
            )
        }
        record!.totalBytes = total
        record!.bytesReceived = writeOffset
        try record!.save(to: working.record)

        let partial = try PartialFile.open(at: working.partial, from: writeOffset)
        reporter.begin(total: total, completed: writeOffset)
        let gauge = options.bufferGauge
        for try await piece in streamed.body {
            gauge?.didRead(piece.count)
            try partial.write(piece)
            gauge?.didHandOver(piece.count)
            reporter.advance(by: piece.count)
            if let total, partial.length > total { break }
            if let limit = options.maximumBytes, partial.length > limit { throw Self.tooLarge(limit, head: head) }
        }
        if let total, partial.length != total {
            if partial.length > total {
                throw CourierError(
                    .integrityCheckFailed, "The server sent more than the \(total) bytes it announced; the file was discarded. Download it again.",
                    url: head.url, response: head
                )
            }
            var cutShort = CourierError(
                .connectionFailed, "The body ended after \(partial.length) of \(total) bytes; the partial file was kept to be resumed.",
                url: head.url, response: head
            )
            cutShort.connectionFailure = .cutShort
            throw cutShort
        }
        reporter.end()
        try BodyDigest.verify(BodyDigest.announced(in: head.headers, isWholeFile: head.status == 200), file: working.partial)
        return .finished(try place(working, at: file, head: head, bytes: partial.length, options: options, attempts: attempts))
    }

    /// The error for a file past ``DownloadOptions/maximumBytes``.
    private static func tooLarge(_ limit: Int64, head: CourierResponse) -> CourierError {
        CourierError(
            .responseTooLarge, "The file is larger than the limit of \(limit) bytes; it was discarded. Raise the limit to download it.",
            url: head.url, response: head
        )
    }

    /// Where the finished file goes: the destination file, or the folder joined with the
    /// server's name made safe (the name chosen by the first response, for a resumed one).
    private func finalURL(
        _ destination: DownloadDestination, record: ResumeRecord?, head: CourierResponse, offset: Int64, overwrite: Bool
    ) throws(CourierError) -> URL {
        switch destination {
        case .file(let url):
            return url
        case .directory(let folder):
            let name: String
            if offset > 0, let saved = record?.fileName {
                name = try DownloadFileName.sanitized(saved)
            } else {
                name = try DownloadFileName.name(contentDisposition: head.headers["Content-Disposition"], url: head.url)
            }
            let file = folder.appendingPathComponent(name, isDirectory: false)
            guard file.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path else {
                throw CourierError(.invalidDestination, "The server's file name \"\(name)\" would leave the folder; download to an explicit path instead.", url: head.url)
            }
            if !overwrite, PartialFile.exists(file) { throw PartialFile.existing(file).with(url: head.url) }
            return file
        }
    }

    /// Moves the complete partial file into place and forgets its resume record.
    private func place(
        _ working: (partial: URL, record: URL), at file: URL, head: CourierResponse, bytes: Int64, options: DownloadOptions, attempts: Int
    ) throws(CourierError) -> DownloadResult {
        try PartialFile.place(working.partial, at: file, overwrite: options.overwritesExistingFile)
        PartialFile.remove(working.record)
        return DownloadResult(fileURL: file, response: head, bytes: bytes, attempts: attempts)
    }
}
