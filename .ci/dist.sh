#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make dist: release archives of every binary that can be built here, per OS/arch, into dist/:
#   rtype-VERSION-OS-ARCH.tar.gz (.zip for Windows) with the binaries, LICENSE, README.md, docs/HOSTING.md,
#   docs/THIRD_PARTY.md and deploy/, and dist/SHA256SUMS over the archives.
# Binaries are built with -trimpath and the version stamped (buildinfo.Version, printed by
# -version). Server, bot and load generator are pure Go (CGO_ENABLED=0) for every target. The
# client needs cgo on Linux and macOS (Ebitengine: X11/GL/ALSA, Cocoa/Metal): it is built for the
# host's own linux/ARCH, for other Linux arches when CC_linux_ARCH names a cross C compiler with
# that arch's X11/GL/ALSA libraries (e.g. CC_linux_arm64=aarch64-linux-gnu-gcc), for Windows
# always (no cgo there), and never for macOS here (it needs Xcode's command-line tools on a Mac:
# `make build` there). What is skipped is said, and written to dist/SKIPPED.
set -eu
GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
LDFLAGS="-s -w -X github.com/rtype/rtype/game/buildinfo.Version=$VERSION"
out=dist
rm -rf "$out"
mkdir -p "$out"
: > "$out/SKIPPED"
hostarch=$($GO env GOHOSTARCH)
hostos=$($GO env GOHOSTOS)

build() { # OS ARCH CGO PKG OUTDIR
	GOOS=$1 GOARCH=$2 CGO_ENABLED=$3 $GO build -trimpath -ldflags "$LDFLAGS" -o "$5/" "./cmd/$4"
}

for t in linux/amd64 linux/arm64 windows/amd64 darwin/amd64 darwin/arm64; do
	os=${t%/*}; arch=${t#*/}
	name=rtype-$VERSION-$os-$arch
	dir=$out/$name
	mkdir -p "$dir"
	for b in rtype-server rtype-bot rtype-load rtype-list; do
		build "$os" "$arch" 0 "$b" "$dir"
	done
	case $os in
	windows) build "$os" "$arch" 0 rtype-client "$dir" ;;
	linux)
		cc=$(eval echo "\${CC_linux_$arch:-}")
		if [ "$hostos/$hostarch" = "linux/$arch" ]; then
			build "$os" "$arch" 1 rtype-client "$dir"
		elif [ -n "$cc" ]; then
			CC=$cc build "$os" "$arch" 1 rtype-client "$dir"
		else
			echo "dist: rtype-client for $t skipped: cgo needs a $arch C compiler and $arch X11/GL/ALSA libraries (set CC_linux_$arch)" | tee -a "$out/SKIPPED" >&2
		fi ;;
	darwin) echo "dist: rtype-client for $t skipped: it needs cgo with Xcode's command-line tools on macOS (run make build there)" | tee -a "$out/SKIPPED" >&2 ;;
	esac
	cp LICENSE README.md docs/HOSTING.md docs/THIRD_PARTY.md "$dir/"
	cp -r deploy "$dir/deploy"
	if [ "$os" = windows ]; then
		find "$dir" -exec touch -h -d '1980-01-02 00:00:00Z' {} +
		(cd "$out" && find "$name" -print | sort | TZ=UTC zip -q -X -D "$name.zip" -@)
	else
		tar --sort=name --mtime='1980-01-02 00:00:00Z' --owner=0 --group=0 --numeric-owner -C "$out" -cf - "$name" | gzip -n > "$out/$name.tar.gz"
	fi
	rm -rf "$dir"
done
(cd "$out" && sha256sum ./*.tar.gz ./*.zip | sed 's| \./| |' > SHA256SUMS)
[ -s "$out/SKIPPED" ] || rm "$out/SKIPPED"
ls -l "$out"
