#!/usr/bin/env bash
# Builds `courier` in release mode and installs it with its manual page and shell completions.
#
#   scripts/install.sh [PREFIX]        PREFIX defaults to ~/.local
#
# Installs:
#   PREFIX/bin/courier                                  the tool (Swift runtime linked in, no
#                                                       debug information)
#   PREFIX/share/man/man1/courier.1                     `man courier`
#   PREFIX/share/bash-completion/completions/courier    bash completion
#   PREFIX/share/zsh/site-functions/_courier            zsh completion
#   PREFIX/share/fish/vendor_completions.d/courier.fish fish completion
#
# bash-completion and fish read these folders for PREFIX=/usr/local and ~/.local; for zsh, add
# PREFIX/share/zsh/site-functions to fpath before compinit. Nothing outside PREFIX is touched.
set -euo pipefail

prefix="${1:-$HOME/.local}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# On Linux the Swift runtime is linked in, so that the tool starts without loading the
# toolchain's shared libraries and runs where no toolchain is installed. URLSession stays out
# (the URLSessionInTool trait is off): its static FoundationNetworking needs libcurl's
# development files, which a fresh machine lacks, and its start-up is paid by every command.
# `--transport urlsession` then says how to build a courier that has it.
case "$(uname -s)" in
    Linux) static=(--static-swift-stdlib --disable-default-traits) ;;
    *) static=() ;;
esac
# What a short command's start-up costs, and why each setting below is here, is measured in
# Benchmarks/README.md ("Start-up of the courier tool").
#
# Every module, the dependencies' too, reaches the metadata of a concrete generic type through
# its accessor, which is handed the conformances it needs, instead of by the type's mangled
# name: read at run time, a name makes the Swift runtime look each conformance up, and the first
# lookup of each pair scans every conformance record in the binary (more than 11,000).
build=(-c release --scratch-path "$root/.build-install" "${static[@]}"
    -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)
if [[ "$(uname -s)" == Linux ]]; then
    # The tool's 50,000 symbols stay out of the dynamic symbol table: nothing loads it as a
    # library, and the loader and the runtime's one `dladdr` no longer search them at start.
    build+=(-Xlinker --no-export-dynamic)
    # Relative relocations packed (DT_RELR): 140,000 of them, 3.4 MB the loader reads at every
    # start, become 27 KB. That needs the toolchain's lld, and glibc 2.36 or later to run the
    # binary (an older glibc refuses to load it, naming the version it lacks).
    toolchain="$(dirname "$(readlink -f "$(command -v swift)")")"
    glibc="$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}' || true)"
    if [[ -x "$toolchain/ld.lld" ]] && [[ "$(printf '%s\n2.36\n' "${glibc:-0}" | sort -V | head -n 1)" == 2.36 ]]; then
        build+=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
    fi
fi
# The build has a folder of its own, so that it does not undo a checkout's own release build.

echo "building courier and its manual-page generator (release)…"
swift build "${build[@]}" --product courier
swift build "${build[@]}" --product generate-manual
bin="$(swift build "${build[@]}" --show-bin-path)"

umask 022
mkdir -p "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
    "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"

install -m 0755 "$bin/courier" "$prefix/bin/courier"
# Debug information is about 40% of the file (77 MB of 197 here); function names stay, so that a
# crash report still names where it happened.
if command -v strip >/dev/null 2>&1; then strip --strip-debug "$prefix/bin/courier"; fi

manual="$(mktemp -d)"
trap 'rm -rf "$manual"' EXIT
"$bin/generate-manual" "$bin/courier" --output-directory "$manual" >/dev/null
install -m 0644 "$manual/courier.1" "$prefix/share/man/man1/courier.1"

"$prefix/bin/courier" --generate-completion-script bash >"$prefix/share/bash-completion/completions/courier"
"$prefix/bin/courier" --generate-completion-script zsh >"$prefix/share/zsh/site-functions/_courier"
"$prefix/bin/courier" --generate-completion-script fish >"$prefix/share/fish/vendor_completions.d/courier.fish"

echo "installed $prefix/bin/courier, its manual page and bash, zsh and fish completions"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "add $prefix/bin to PATH to run courier" ;;
esac
