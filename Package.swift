// swift-tools-version:6.2
import PackageDescription

/// Set `COURIER_WARNINGS_AS_ERRORS` (as `.ci/run` does) to make any warning in Courier's own
/// targets an error; warnings inside dependencies are not affected.
let warningsAsErrors = Context.environment["COURIER_WARNINGS_AS_ERRORS"].map { !$0.isEmpty && $0 != "0" } ?? false

let strictSettings: [SwiftSetting] =
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ] + (warningsAsErrors ? [.treatAllWarnings(as: .error)] : [])

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierLifecycle", targets: ["CourierLifecycle"]),
        .library(name: "CourierOpenAPI", targets: ["CourierOpenAPI"]),
        .library(name: "CourierQueue", targets: ["CourierQueue"]),
        .library(name: "CourierQueuePostgres", targets: ["CourierQueuePostgres"]),
        .library(name: "CourierCachePostgres", targets: ["CourierCachePostgres"]),
        .library(name: "CourierLimitsPostgres", targets: ["CourierLimitsPostgres"]),
        .library(name: "CourierXML", targets: ["CourierXML"]),
        .library(name: "CourierServerSentEvents", targets: ["CourierServerSentEvents"]),
        .library(name: "CourierWebSockets", targets: ["CourierWebSockets"]),
        .library(name: "CourierImages", targets: ["CourierImages"]),
        .library(name: "CourierURLSession", targets: ["CourierURLSession"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
        .executable(name: "courier", targets: ["courier"]),
    ],
    traits: [
        .default(enabledTraits: ["URLSessionInTool"]),
        .trait(
            name: "URLSessionInTool",
            description:
                "Links URLSession into the courier tool for `--transport urlsession`. On Linux that is FoundationNetworking over libcurl, whose static library a fresh machine lacks: scripts/install.sh builds a static courier without this trait. Only the courier executable reads it; the library products are the same either way."
        ),
        .trait(
            name: "DeprecatedNames",
            description:
                "Keeps the type names from before 0.3.0 (Client, Request, Response, HTTPRequest, HTTPMethod, RequestBody, RequestID, Cookie, Parameters, Endpoint, RetryPolicy, CacheEntry, AsyncHTTPClientTransport) as deprecated aliases while a program migrates; they clash with names of Vapor, Fluent, Hummingbird, NIOHTTP1, swift-http-types, gRPC and OpenAPI transports."
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-http-structured-headers.git", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
    ],
    targets: [
        .target(
            name: "Courier",
            dependencies: [
                "CCourierZlib",
                "CCourierCodecs",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        // The client as a swift-service-lifecycle service.
        .target(
            name: "CourierLifecycle",
            dependencies: ["Courier", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            swiftSettings: strictSettings
        ),
        // A swift-openapi-runtime ClientTransport: generated OpenAPI clients send through Courier.
        .target(
            name: "CourierOpenAPI",
            dependencies: [
                "Courier",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: strictSettings
        ),
        // The durable queue, with SQLite: only programs that queue requests build and load it.
        .target(
            name: "CourierQueue",
            dependencies: [
                "Courier",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The durable queue in PostgreSQL, shared by workers on many hosts: only programs that
        // use it build postgres-nio.
        .target(
            name: "CourierQueuePostgres",
            dependencies: [
                "Courier",
                "CourierQueue",
                "CourierPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        // The HTTP cache in PostgreSQL, shared by processes on many hosts.
        .target(
            name: "CourierCachePostgres",
            dependencies: [
                "Courier",
                "CourierPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Per-origin limits in PostgreSQL, shared by processes on many hosts.
        .target(
            name: "CourierLimitsPostgres",
            dependencies: [
                "Courier",
                "CourierPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // What the PostgreSQL products share (reading a postgres:// URL, deadlines on
        // statements, migrating tables, a pool that outlives outages); not a product of its own.
        .target(
            name: "CourierPostgres",
            dependencies: [
                "Courier",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .systemLibrary(name: "CCourierZlib", path: "Sources/CCourierZlib"),
        // brotli and zstd, undone (and, for the demo server, made) by the system's libraries,
        // loaded when first needed: nothing to install to build, and a machine without them
        // delivers such bodies as received.
        .target(name: "CCourierCodecs", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Foundation's XML support links libxml2 (and ICU on Linux): only programs that read XML
        // load them.
        .target(name: "CourierXML", dependencies: ["Courier"], swiftSettings: strictSettings),
        // Server-Sent Events over the client's request path: a parser and a reconnecting
        // sequence, without dependencies of their own.
        .target(
            name: "CourierServerSentEvents",
            dependencies: ["Courier", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        // WebSockets over the client's request path: the upgrade is a request like any other;
        // the frames, pings, close handshake and permessage-deflate are swift-websocket's.
        .target(
            name: "CourierWebSockets",
            dependencies: [
                "Courier",
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "WSCompression", package: "swift-websocket"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Images decoded and downsampled: ImageIO on Apple platforms; libpng and libjpeg on Linux,
        // which only programs that load images need installed and link.
        .target(
            name: "CourierImages",
            dependencies: ["Courier", .target(name: "CCourierImageCodecs", condition: .when(platforms: [.linux]))],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CCourierImageCodecs",
            linkerSettings: [
                .linkedLibrary("png", .when(platforms: [.linux])),
                .linkedLibrary("jpeg", .when(platforms: [.linux])),
            ]
        ),
        // URLSession's networking lives in FoundationNetworking on Linux, which links libcurl:
        // only programs that choose this transport load it.
        .target(
            name: "CourierURLSession",
            dependencies: ["Courier", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        // The in-process HTTP server with httpbin-like routes that `courier demo` runs against
        // and that CourierTesting hands to tests: plain HTTP here; the certificates made at run
        // time, the faulty servers and the proxies stay in CourierTesting, out of the shipped
        // binary.
        .target(
            name: "CourierDemoServer",
            dependencies: [
                "CCourierZlib",
                "CCourierCodecs",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CourierTesting",
            dependencies: [
                "CourierDemoServer",
                "CCourierZlib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "WSCompression", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "courier",
            dependencies: [
                "Courier",
                "CourierQueue",
                "CourierQueuePostgres",
                "CourierCachePostgres",
                "CourierLimitsPostgres",
                "CourierPostgres",
                "CourierServerSentEvents",
                "CourierWebSockets",
                "CourierDemoServer",
                .target(name: "CourierURLSession", condition: .when(traits: ["URLSessionInTool"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierTests",
            dependencies: [
                "Courier",
                "CourierLifecycle",
                "CourierQueue",
                "CourierXML",
                "CourierServerSentEvents",
                "CourierWebSockets",
                "CourierTesting",
                "CourierURLSession",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        // A child process for the disk cache's crash tests: it stores entries in a loop until
        // the test kills it. Not shipped; only courierTests depends on it.
        .executableTarget(
            name: "courier-cache-writer",
            dependencies: ["Courier", "CourierTesting"],
            path: "Tests/CacheWriter",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "courierTests",
            dependencies: ["courier", "courier-cache-writer", "Courier", "CourierQueue", "CourierTesting"],
            swiftSettings: strictSettings
        ),
        // A client generated by swift-openapi-generator from Tests/CourierOpenAPITests/openapi.yaml
        // (the generated code is committed; see scripts/generate-openapi-example.sh), run against
        // the in-process test server.
        .testTarget(
            name: "CourierOpenAPITests",
            dependencies: [
                "Courier",
                "CourierOpenAPI",
                "CourierTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"],
            swiftSettings: strictSettings
        ),
        // Against throwaway PostgreSQL servers that the tests start on 127.0.0.1 (see
        // PostgresCluster.swift); QueueWorkerScenarios.swift is CourierTests' own, linked.
        .testTarget(
            name: "CourierQueuePostgresTests",
            dependencies: [
                "Courier",
                "CourierQueue",
                "CourierQueuePostgres",
                "CourierCachePostgres",
                "CourierLimitsPostgres",
                "CourierPostgres",
                "CourierTesting",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierImagesTests",
            dependencies: ["Courier", "CourierImages", "CourierTesting"],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "CourierTestingTests", dependencies: ["CourierTesting", "CCourierZlib", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")], swiftSettings: strictSettings),
    ]
)
