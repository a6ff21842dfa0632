#!/usr/bin/env bash
# krew.sh DIST VERSION [OS/ARCH...]: build the kubectl plugin's archives (the
# proxykit binary as kubectl-proxykit, with LICENSE) into DIST and write the krew
# manifest there, krew/proxykit.yaml with VERSION and the archives' SHA256 filled
# in. Without OS/ARCH, every platform the manifest lists.
set -euo pipefail
dist=$1 version=$2
shift 2
platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dist"
manifest=$(sed "s/VERSION/$version/g" "$root/krew/proxykit.yaml")
for platform in "${platforms[@]}"; do
	os=${platform%/*} arch=${platform#*/}
	work=$(mktemp -d)
	(cd "$root" && CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -o "$work/kubectl-proxykit" ./cmd/proxykit)
	cp "$root/LICENSE" "$work/"
	archive="$dist/kubectl-proxykit_${version}_${os}_${arch}.tar.gz"
	tar -C "$work" -czf "$archive" kubectl-proxykit LICENSE
	rm -rf "$work"
	sum=$(sha256sum "$archive" | cut -d' ' -f1)
	manifest=${manifest//SHA256_${os}_${arch}/$sum}
done
printf '%s\n' "$manifest" > "$dist/proxykit.yaml"
echo "$dist/proxykit.yaml"
