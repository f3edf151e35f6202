// swift-tools-version:6.2
import Foundation
import PackageDescription

// Built by .ci/run, never by the tests: every Swift sample of the DocC catalogs, copied into
// Sources/DocSamples/Samples by scripts/doc-samples.py, compiled against Courier by path.

/// Courier's identity as a path dependency: the name of the repository's folder, whatever the
/// clone is called.
let courier = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("../../..").standardized.lastPathComponent.lowercased()

let package = Package(
    name: "DocSamples",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../../.."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .target(
            name: "DocSamples",
            dependencies: [
                .product(name: "Courier", package: courier),
                .product(name: "CourierImages", package: courier),
                .product(name: "CourierLifecycle", package: courier),
                .product(name: "CourierOpenAPI", package: courier),
                .product(name: "CourierQueue", package: courier),
                .product(name: "CourierQueuePostgres", package: courier),
                .product(name: "CourierCachePostgres", package: courier),
                .product(name: "CourierLimitsPostgres", package: courier),
                .product(name: "CourierServerSentEvents", package: courier),
                .product(name: "CourierWebSockets", package: courier),
                .product(name: "CourierTesting", package: courier),
                .product(name: "CourierURLSession", package: courier),
                .product(name: "CourierXML", package: courier),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        )
    ]
)
