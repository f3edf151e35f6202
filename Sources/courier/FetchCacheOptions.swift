import ArgumentParser
import Courier
import Foundation

/// `fetch`'s cache options, as ``FetchCommand`` reads them: a disk cache folder shared by every
/// `courier` run, and the mode the request uses it in.
struct FetchCacheOptions {
    /// `--cache`: the folder.
    var folder: String?
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

    /// Gives `configuration` a memory cache in front of the folder, and `request` the mode.
    func apply(to configuration: inout ClientConfiguration, request: inout CourierRequest<CourierResponse>) throws {
        guard let folder else {
            if let mode {
                throw CommandFailure(.invalidInput, "--cache-mode \(mode.rawValue) needs a cache folder; add --cache DIR")
            }
            if staleWhenOffline { throw CommandFailure(.invalidInput, "--stale-when-offline needs a cache folder; add --cache DIR") }
            return
        }
        configuration.cache = CacheConfiguration(storage: try Self.storage(folder: folder))
        if staleWhenOffline { configuration.cache?.policy.servesStaleWhenOffline = true }
        request.cachePolicy = (mode ?? .default).policy
    }

    /// A memory store in front of the disk store in `folder`.
    static func storage(folder: String) throws -> TieredCacheStorage {
        try PathCheck.folderOrNothing(folder, option: "--cache")
        return TieredCacheStorage(front: MemoryCacheStorage(), back: try disk(folder: folder))
    }

    /// The disk store in `folder`, with what it found open to other users reported on stderr;
    /// a folder that cannot be used is invalid input, in `fetch` and `cache` alike.
    static func disk(folder: String) throws(CommandFailure) -> DiskCacheStorage {
        do {
            let disk = try DiskCacheStorage(directory: URL(fileURLWithPath: folder, isDirectory: true))
            for warning in disk.permissionWarnings { Output.current.error("courier: warning: \(warning)") }
            return disk
        } catch {
            throw CommandFailure(.invalidInput, "--cache \(folder): \(error.message)")
        }
    }
}

extension FetchCommand {
    /// The cache options, as one value.
    var cache: FetchCacheOptions { FetchCacheOptions(folder: cacheFolder, mode: cacheMode, staleWhenOffline: staleWhenOffline) }
}
