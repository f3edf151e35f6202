// swift-tools-version:6.2
import Foundation
import PackageDescription

// Built by .ci/run, never by the tests: a package that depends on Courier by path and imports it
// beside Vapor, Fluent, Hummingbird, NIOHTTP1, swift-http-types, gRPC, the OpenAPI transports and the other modules a Swift service
// commonly imports, with every name unqualified. It compiles only while no name is ambiguous.

/// Courier's identity as a path dependency: the name of the repository's folder, whatever the
/// clone is called.
let courier = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("../../..").standardized.lastPathComponent.lowercased()

let package = Package(
    name: "EcosystemImports",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../../.."),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/fluent.git", from: "4.13.0"),
        .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.2"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(name: "VaporStyle", dependencies: [.product(name: "Vapor", package: "vapor"), .product(name: "Fluent", package: "fluent")] + common),
        .target(name: "HummingbirdStyle", dependencies: [.product(name: "Hummingbird", package: "hummingbird")] + common),
    ]
)
var common: [Target.Dependency] {
    [
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
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "GRPCCore", package: "grpc-swift-2"),
        .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
        .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Tracing", package: "swift-distributed-tracing"),
    ]
}
