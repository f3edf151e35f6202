import Foundation
import NIOCore
import NIOPosix

// courier-bench: the same workload through raw AsyncHTTPClient and through Courier, in one run.
//
//   courier-bench [--requests N] [--rounds R] [--concurrency 1,16] [--allocations] [--nio-global-executor]
//                  (--allocations: the same run with allocations counted; glibc only)
//   courier-bench --transfers [--size-mib 1024] [--rounds R] [--courier PATH]
//   courier-bench --decoding [--size-mib 100] [--rounds R] [--courier PATH]
//                  (br and zstd bodies undone by `courier fetch`, `curl --compressed`, `brotli -d`, `zstd -d`)
//   courier-bench --queue [--requests N] [--rounds R]   (the durable queue)
//   courier-bench --queue-workers [--requests N] [--rounds R]   (the queue in PostgreSQL, several workers)
//   courier-bench --queue-soak [--requests N] [--kills K] [--workers W] [--sqlite]
//                  (worker processes killed at random while they deliver; checks nothing is lost)
//   courier-bench --cache [--rounds R]
//   courier-bench --cache-layout [--rounds R]   (a body in PostgreSQL: rows against a large object)
//   courier-bench --batch [--requests N] [--concurrency C] [--rounds R] [--courier PATH]
//                  (`courier batch` against raw AsyncHTTPClient, whole processes)
//   courier-bench --tls [--requests N] [--rounds R] [--concurrency 1,16]
//                  (TLS settings of the client's own, over HTTP/1.1 and HTTP/2)
//   courier-bench --serve          (the server child process; started apart, it prints its port
//                  and serves until its standard input closes)
//   courier-bench [--queue|--cache|--queue-workers] --server-port PORT
//                  (use a server started apart with --serve instead of a child: for profilers
//                  that follow no child process, such as valgrind and heaptrack)
//   courier-bench --cache-memory-child PORT N  (internal: the cache memory child process)
//   courier-bench --cache-large-child STORE LOCATION  (internal: the large-entry child process)
//   courier-bench --serve-files D  (internal: the file server child process)
//   courier-bench --decoding-files D MIB  (internal: makes the compressed files of --decoding)
//   courier-bench --queue-soak-worker STORAGE  (internal: a soak's worker process)
//   courier-bench --raw-batch FILE C API  (internal: the raw contender of --batch)
//
// The server runs in a child process so that the CPU time measured here is the client's own.

let arguments = CommandLine.arguments
// A program's own decision, which no library takes for it: SwiftNIO's event loops become Swift's
// global executor, so that a task resumes on the loop its response arrived on. Installed here,
// on the main thread, before anything runs on the cooperative pool.
if arguments.contains("--nio-global-executor") {
    guard NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() else {
        print("courier-bench: SwiftNIO could not be installed as the global executor here")
        exit(1)
    }
    print("SwiftNIO's event loops are Swift's global executor in this run (--nio-global-executor).")
}
if arguments.contains("--allocations"), !Allocations.areCounted {
    exit(try Allocations.rerunCounting())
}
if arguments.contains(TLSBenchmark.serveFlag) {
    try await TLSBenchmark.serve()
} else if arguments.contains("--serve") {
    try await ServerProcess.serve()
} else if let flag = arguments.firstIndex(of: DecodingBenchmark.filesFlag), flag + 2 < arguments.count {
    try DecodingBenchmark.writeFiles(folder: arguments[flag + 1], megabytes: Int(arguments[flag + 2]) ?? 100)
} else if let flag = arguments.firstIndex(of: "--serve-files"), flag + 1 < arguments.count {
    try await FileServer.serve(folder: arguments[flag + 1])
} else if let flag = arguments.firstIndex(of: "--cache-large-child"), flag + 2 < arguments.count {
    try await CacheBenchmark.storeLargeEntries(name: arguments[flag + 1], location: arguments[flag + 2])
} else if let flag = arguments.firstIndex(of: "--cache-memory-child"), flag + 2 < arguments.count {
    try await CacheBenchmark.storeResponses(port: Int(arguments[flag + 1]) ?? 0, count: Int(arguments[flag + 2]) ?? 0)
} else if let flag = arguments.firstIndex(of: BatchBenchmark.rawFlag), flag + 3 < arguments.count {
    try await BatchBenchmark.rawBatch(file: arguments[flag + 1], concurrency: Int(arguments[flag + 2]) ?? 1, api: arguments[flag + 3])
} else if let flag = arguments.firstIndex(of: QueueSoak.workerFlag), flag + 1 < arguments.count {
    try await QueueSoak.work(storage: arguments[flag + 1])
} else {
    let options = Options(arguments)
    if arguments.contains("--queue-soak") {
        let soak = QueueSoak(records: options.requests, kills: options.kills, workers: options.workers, usesSQLite: arguments.contains("--sqlite"))
        exit(try await soak.run() ? 0 : 1)
    }
    if arguments.contains("--priorities") {
        try await PriorityOrderBenchmark(count: 1_000).run()
        exit(0)
    }
    if arguments.contains("--transfers") {
        try TransferBenchmark(megabytes: options.megabytes, rounds: options.rounds, courier: options.courier).run()
        exit(0)
    }
    if arguments.contains("--decoding") {
        try DecodingBenchmark(megabytes: arguments.contains("--size-mib") ? options.megabytes : 100, rounds: options.rounds, courier: options.courier).run()
        exit(0)
    }
    if arguments.contains("--batch") {
        let concurrency = options.concurrencies.last ?? 16
        try BatchBenchmark(requests: options.requests, concurrency: concurrency, rounds: options.rounds, courier: options.courier).run()
        exit(0)
    }
    if arguments.contains("--tls") {
        try await TLSBenchmark(options: options).run()
        exit(0)
    }
    if arguments.contains("--cache-layout") {
        try await CacheLayoutBenchmark(rounds: options.rounds).run()
        exit(0)
    }
    if arguments.contains("--overhead") {
        try await OverheadBenchmark(requests: options.requests * 20, rounds: options.rounds).run()
        exit(0)
    }
    let server = try options.serverPort.map(ServerProcess.running(on:)) ?? ServerProcess.launch()
    defer { server.stop() }
    if arguments.contains("--queue-workers") {
        var benchmark = QueueWorkersBenchmark(server: server, records: min(options.requests, 2_000), rounds: options.rounds)
        benchmark.selects = options.selects
        try await benchmark.run()
    } else if arguments.contains("--queue") {
        try await QueueBenchmark(server: server, requests: min(options.requests, 1_000), rounds: options.rounds).run()
    } else if arguments.contains("--cache") {
        try await CacheBenchmark(server: server, rounds: options.rounds).run()
    } else {
        try await SmallGetBenchmark(url: server.url("/bytes/100"), options: options).run()
    }
}
