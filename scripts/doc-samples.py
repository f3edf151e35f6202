#!/usr/bin/env python3
"""Writes every Swift sample of the DocC catalogs into the DocSamples package.

Each ```swift block of Sources/*/*.docc/*.md becomes the body of one function in
Tests/Packages/DocSamples/Sources/DocSamples/Samples/<Catalog>.swift, which .ci/run builds: a
sample that no longer compiles fails CI. The names a sample uses without declaring them
(`client`, `configuration`, `request`…) come from SampleContext.swift. Run this after changing a
sample; DocSamplesTests fails while the package's copy differs from the catalogs.
"""
import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/Packages/DocSamples/Sources/DocSamples/Samples")
# Names a sample may use without declaring them; each is a member of SampleContext.
CONTEXT = ["client", "configuration", "request", "form", "upload", "savedToken", "signIn", "fixedDate",
           "indicator", "ids", "requestMetrics", "p12Password", "exportFile", "server", "logger",
           "password", "outboxPath", "draft", "session", "batch", "memory", "folder", "downloads",
           "queue", "postgres", "orderID"]
# Targets without a catalog whose public names a product re-exports: CourierTesting exports the
# server of CourierDemoServer.
REEXPORTED = {"CourierTesting": ["CourierDemoServer"]}
# How a name is taken from the context, where not as it is.
INJECTED = {"queue": "context.queue!"}
# The ones samples change; the others are constants, which closures may capture.
MUTABLE = {"configuration", "request", "form", "upload"}


def blocks(path):
    """The Swift code blocks of an article, or of the documentation comments of a source file."""
    comments = path.endswith(".swift")
    inside, lines, found, indent = False, [], [], ""
    for line in open(path, encoding="utf-8").read().split("\n"):
        if comments:
            match = re.match(r"^(\s*///\s?)(.*)$", line)
            if not match:
                inside = False
                continue
            prefix, line = match.group(1), match.group(2)
        if not inside and line.startswith("```swift"):
            inside, lines = True, []
        elif inside and line.startswith("```"):
            inside = False
            found.append(lines)
        elif inside:
            lines.append(line)
    return found


def function(name, source, lines):
    body = [line for line in lines if not line.startswith("import ")]
    if any(line.startswith("@Test") for line in body):
        # A test is a declaration of its own: it stays one, at the file's top level.
        return None, "\n".join([f"// {source}"] + body)
    text = "\n".join(body)
    # Declared by the sample's own top-level statements (not inside a type it declares).
    declared = set(re.findall(r"^(?:let|var)\s+(\w+)", text, re.MULTILINE))
    used = [n for n in CONTEXT if re.search(r"(?<![\w.])" + n + r"\b(?!\s*:)", text) and n not in declared]
    out = [f"    /// {source}", f"    static func {name}(_ context: SampleContext) async throws {{"]
    for n in used:
        out.append(f"        {'var' if n in MUTABLE else 'let'} {n} = {INJECTED.get(n, 'context.' + n)}")
        out.append(f"        _ = {n}")
    out += [("        " + line) if line else "" for line in body]
    out.append("    }")
    return "\n".join(out), None


def main():
    os.makedirs(OUT, exist_ok=True)
    for old in glob.glob(os.path.join(OUT, "*.swift")):
        os.remove(old)
    catalogs = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "Sources/*/*.docc/*.md"))):
        catalog = os.path.basename(os.path.dirname(path))[: -len(".docc")]
        catalogs.setdefault(catalog, []).append(path)
    for product in sorted(glob.glob(os.path.join(ROOT, "Sources/*/*.docc"))):
        target = os.path.dirname(product)
        catalog = os.path.basename(product)[: -len(".docc")]
        sources = sorted(glob.glob(os.path.join(target, "**/*.swift"), recursive=True))
        # A target without a catalog of its own that a product re-exports counts as the product's.
        for extra in REEXPORTED.get(catalog, []):
            sources += sorted(glob.glob(os.path.join(ROOT, "Sources", extra, "**/*.swift"), recursive=True))
        catalogs.setdefault(catalog, []).extend(sources)
    for catalog, paths in catalogs.items():
        functions, declarations = [], []
        for path in paths:
            article = re.sub(r"\W", "", os.path.basename(path).rsplit(".", 1)[0])
            for index, lines in enumerate(blocks(path), start=1):
                relative = os.path.relpath(path, ROOT)
                name = article[0].lower() + article[1:] + str(index)
                inside, outside = function(name, f"{relative}, sample {index}", lines)
                if inside:
                    functions.append(inside)
                if outside:
                    declarations.append(outside)
        if not functions and not declarations:
            continue
        header = [
            "// swift-format-ignore-file",
            f"// Written by scripts/doc-samples.py from the {catalog} catalog; do not edit.",
            "",
            "import CoreMetrics",
            "import Courier",
            "import CourierImages",
            "import CourierLifecycle",
            "import CourierLimitsPostgres",
            "import CourierOpenAPI",
            "import CourierQueue",
            "import CourierCachePostgres",
            "import CourierQueuePostgres",
            "import CourierServerSentEvents",
            "import CourierTesting",
            "import CourierURLSession",
            "import CourierWebSockets",
            "import CourierXML",
            "import Foundation",
            "import HTTPTypes",
            "import Logging",
            "import PostgresNIO",
            "import ServiceLifecycle",
            "import Testing",
            "",
            "extension Samples {",
        ]
        with open(os.path.join(OUT, f"{catalog}.swift"), "w", encoding="utf-8") as out:
            out.write("\n".join(header) + "\n" + "\n\n".join(functions) + "\n}\n")
            for declaration in declarations:
                out.write("\n" + declaration + "\n")


main()
