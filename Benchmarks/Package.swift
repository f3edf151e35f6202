// swift-tools-version:6.1
import Foundation
import PackageDescription

// Alamofire is not a dependency: the small-GET run gains an Alamofire contender when
// COURIER_BENCH_ALAMOFIRE names the folder of a checkout of it (5.x) at build time.
let alamofire: String? = ProcessInfo.processInfo.environment["COURIER_BENCH_ALAMOFIRE"].flatMap { folder in
    FileManager.default.fileExists(atPath: folder + "/Package.swift") ? folder : nil
}

// Benchmarks live in their own package so that the library's users never build them.
// Run: swift run -c release --package-path Benchmarks courier-bench
let package = Package(
    name: "CourierBenchmarks",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "courier-bench", targets: ["courier-bench"]),
        // Preloaded by `courier-bench --allocations` to count allocations (glibc only); no
        // target links it.
        .library(name: "CourierAllocationCounter", type: .dynamic, targets: ["CAllocationCounter"]),
    ],
    dependencies: [
        .package(name: "Courier", path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ] + (alamofire.map { [.package(path: $0)] } ?? []),
    targets: [
        .executableTarget(
            name: "courier-bench",
            dependencies: [
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierQueue", package: "Courier"),
                .product(name: "CourierQueuePostgres", package: "Courier"),
                .product(name: "CourierCachePostgres", package: "Courier"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CourierTesting", package: "Courier"),
                .product(name: "CourierURLSession", package: "Courier"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
                + (alamofire.map { [.product(name: "Alamofire", package: URL(fileURLWithPath: $0).lastPathComponent)] } ?? []),
            path: "Sources/CourierBenchmarks",
            swiftSettings: alamofire == nil ? [] : [.define("COURIER_BENCH_ALAMOFIRE")]
        ),
        .target(name: "CAllocationCounter", path: "Sources/CAllocationCounter"),
    ]
)
