// swift-tools-version:6.2
import Foundation
import PackageDescription

// Built by .ci/run, never by the tests: code written with the type names from before 0.3.0
// builds, with deprecation warnings, when Courier's DeprecatedNames trait is enabled; and every
// library product builds with the trait on (as the documentation plugin builds them).

/// Courier's identity as a path dependency: the name of the repository's folder, whatever the
/// clone is called.
let courier = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("../../..").standardized.lastPathComponent.lowercased()

let package = Package(
    name: "DeprecatedNames",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "../../..", traits: ["DeprecatedNames"])],
    targets: [
        .target(
            name: "OldNames",
            dependencies: ["Courier", "CourierLifecycle", "CourierOpenAPI", "CourierQueue", "CourierQueuePostgres", "CourierServerSentEvents", "CourierTesting", "CourierWebSockets", "CourierXML"].map {
                .product(name: $0, package: courier)
            }
        )
    ]
)
