#!/usr/bin/env bash
# Regenerates the OpenAPI example client in Tests/CourierOpenAPITests/Generated from
# Tests/CourierOpenAPITests/openapi.yaml with swift-openapi-generator. The generated code is
# committed, so that neither the package nor its tests depend on the generator; run this after
# changing the document, then commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
tests="$root/Tests/CourierOpenAPITests"
version="1.14.3"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/Package.swift" <<MANIFEST
// swift-tools-version:6.2
import PackageDescription
let package = Package(
    name: "Generator",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "$version")],
    targets: []
)
MANIFEST
swift build --package-path "$work" --product swift-openapi-generator
rm -rf "$tests/Generated"
mkdir -p "$tests/Generated"
"$work/.build/debug/swift-openapi-generator" generate "$tests/openapi.yaml" \
    --config "$tests/openapi-generator-config.yaml" --output-directory "$tests/Generated"
swift format format -i -r "$tests/Generated"
echo "Generated $(ls "$tests/Generated" | tr '\n' ' ')with swift-openapi-generator $version."
