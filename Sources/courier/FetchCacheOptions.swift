import ArgumentParser
import Courier
import CourierCachePostgres
import CourierPostgres
import Foundation

/// `fetch`'s cache options, as ``FetchCommand`` reads them: a disk cache folder shared by every
/// `courier` run, or a PostgreSQL database shared by every process that names it, and the mode
/// the request uses it in.
struct FetchCacheOptions {
    /// `--cache`: the folder, or a `postgres://` URL.
    var folder: String?
    /// `--cache-max-bytes`: the store's bound, when given.
    var maximumBytes: Int?
    /// `--cache-mode`: the mode.
    var mode: Mode?
    /// `--stale-when-offline`: a stale stored response when the server cannot be reached.
    var staleWhenOffline = false

    /// The kebab-case names of ``CachePolicy``'s modes.
    enum Mode: String, CaseIterable, ExpressibleByArgument {
        case `default`
        case reload
        case noStore = "no-store"
        case noCache = "no-cache"
        case returnCacheElseLoad = "return-cache-else-load"
        case onlyIfCached = "only-if-cached"
        case cachedThenFresh = "cached-then-fresh"

        /// The names, comma-separated, for help texts. Built by a loop over the cases rather
        /// than ArgumentParser's `allValueStrings` and `joined(separator:)`, whose generic code
        /// makes the runtime look up two conformances (each a scan of every conformance record)
        /// every time `fetch` is run, since the help text is built when the command is made.
        static var names: String {
            var text = ""
            for mode in allCases {
                if !text.isEmpty { text += ", " }
                text += mode.rawValue
            }
            return text
        }

        /// The library's mode.
        var policy: CachePolicy {
            switch self {
            case .default: .default
            case .reload: .reload
            case .noStore: .noStore
            case .noCache: .noCache
            case .returnCacheElseLoad: .returnCacheElseLoad
            case .onlyIfCached: .onlyIfCached
            case .cachedThenFresh: .cachedThenFresh
            }
        }
    }

    /// Whether the run delivers the stored response and then the network's.
    var deliversTwice: Bool { folder != nil && mode == .cachedThenFresh }

    /// Gives `configuration` the cache `--cache` names, for a command whose requests all use it
    /// in the default mode (`batch`).
    func apply(to configuration: inout ClientConfiguration) throws {
        var request = CourierRequest<CourierResponse>(path: "/")
        try apply(to: &configuration, request: &request)
    }

    /// Gives `configuration` the cache `--cache` names, and `request` the mode.
    func apply(to configuration: inout ClientConfiguration, request: inout CourierRequest<CourierResponse>) throws {
        guard let folder else {
            if let mode {
                throw CommandFailure(.invalidInput, "--cache-mode \(mode.rawValue) needs a cache folder; add --cache DIR")
            }
            if staleWhenOffline { throw CommandFailure(.invalidInput, "--stale-when-offline needs a cache folder; add --cache DIR") }
            if maximumBytes != nil { throw CommandFailure(.invalidInput, "--cache-max-bytes needs a cache; add --cache DIR or --cache postgres://…") }
            return
        }
        configuration.cache = CacheConfiguration(storage: try Self.storage(folder: folder, maximumBytes: maximumBytes))
        if staleWhenOffline { configuration.cache?.policy.servesStaleWhenOffline = true }
        request.cachePolicy = (mode ?? .default).policy
    }

    /// What `--cache` names: the PostgreSQL store at a `postgres://` URL, or a memory store in
    /// front of the disk store in a folder; bounded by `maximumBytes` when given.
    static func storage(folder: String, maximumBytes: Int? = nil) throws -> any CacheStorage {
        if let database = try database(folder, maximumBytes: maximumBytes) { return database }
        try PathCheck.folderOrNothing(folder, option: "--cache")
        return TieredCacheStorage(front: MemoryCacheStorage(), back: try disk(folder: folder, maximumBytes: maximumBytes))
    }

    /// The PostgreSQL store when `location` is a `postgres://` (or `postgresql://`) URL, `nil`
    /// otherwise. While the database cannot be reached, one line on stderr says so and the
    /// requests go to the network; nothing is said while it answers.
    static func database(_ location: String, maximumBytes: Int? = nil, warns: Bool = true) throws(CommandFailure) -> PostgresCacheStorage? {
        let lowered = location.lowercased()
        guard lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") else { return nil }
        guard let url = URL(string: location) else { throw CommandFailure(.invalidInput, "--cache \(location) is not a URL") }
        let output = Output.current
        let name = shown(url, purpose: "cache")
        do {
            return try PostgresCacheStorage(url: url, maximumBytes: maximumBytes ?? PostgresCacheStorage.defaultMaximumBytes) { change in
                guard warns, case .unavailable(let reason) = change else { return }
                output.error("courier: warning: the cache database at \(name) is unavailable (\(reason)); requests go to the network without the cache")
            }
        } catch {
            throw CommandFailure(.invalidInput, "--cache: \(error.message)")
        }
    }

    /// A database URL as messages show it, as the PostgreSQL stores show it: without its
    /// password and parameters.
    static func shown(_ url: URL, purpose: String) -> String {
        (try? PostgresLocation(url, purpose: purpose).redacted) ?? PostgresLocation.withoutPassword(url)
    }

    /// The disk store in `folder`, with what it found open to other users reported on stderr;
    /// a folder that cannot be used is invalid input, in `fetch` and `cache` alike.
    static func disk(folder: String, maximumBytes: Int? = nil) throws(CommandFailure) -> DiskCacheStorage {
        do {
            let disk = try DiskCacheStorage(
                directory: URL(fileURLWithPath: folder, isDirectory: true), maximumBytes: maximumBytes ?? DiskCacheStorage.defaultMaximumBytes
            )
            for warning in disk.permissionWarnings { Output.current.error("courier: warning: \(warning)") }
            return disk
        } catch {
            throw CommandFailure(.invalidInput, "--cache \(folder): \(error.message)")
        }
    }
}

extension FetchCommand {
    /// The cache options, as one value.
    var cache: FetchCacheOptions {
        FetchCacheOptions(folder: cacheFolder, maximumBytes: cacheMaxBytes, mode: cacheMode, staleWhenOffline: staleWhenOffline)
    }
}
