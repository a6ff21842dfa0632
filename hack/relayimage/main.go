// Command relayimage builds the relay's OCI image from static binaries of
// cmd/proxykit-relay, with go-containerregistry and no base image: one layer
// holding /proxykit-relay, run as nobody. It writes an OCI image layout (an
// index of one image per platform) and, with -push, pushes the index to a
// registry. `make relay-image` runs it; the node suite pushes its output to
// the test registry and runs the relay's Pods from it.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/proxykit/proxykit/hack/relayimage/image"
)

func main() {
	var binaries, out, push, version string
	flag.StringVar(&binaries, "binaries", "", "OS/ARCH=PATH,... of static proxykit-relay binaries, e.g. linux/amd64=dist/relay-amd64")
	flag.StringVar(&out, "out", "", "folder to write the OCI image layout to")
	flag.StringVar(&push, "push", "", "also push the index to this reference (HOST[:PORT]/REPO:TAG); plain HTTP for loopback")
	flag.StringVar(&version, "version", "", "the image's version label")
	flag.Parse()
	if err := run(binaries, out, push, version); err != nil {
		fmt.Fprintln(os.Stderr, "relayimage:", err)
		os.Exit(1)
	}
}

func run(binaries, out, push, version string) error {
	if binaries == "" || out == "" {
		return fmt.Errorf("-binaries and -out are required")
	}
	var platforms []image.Binary
	for _, pair := range strings.Split(binaries, ",") {
		platform, path, ok := strings.Cut(pair, "=")
		osName, arch, ok2 := strings.Cut(platform, "/")
		if !ok || !ok2 {
			return fmt.Errorf("-binaries: %q is not OS/ARCH=PATH", pair)
		}
		platforms = append(platforms, image.Binary{Platform: v1.Platform{OS: osName, Architecture: arch}, Path: path})
	}
	idx, err := image.Index(platforms, version)
	if err != nil {
		return err
	}
	os.RemoveAll(out)
	if _, err := layout.Write(out, empty.Index); err != nil {
		return err
	}
	p, err := layout.FromPath(out)
	if err != nil {
		return err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": version})); err != nil {
		return err
	}
	if push == "" {
		return nil
	}
	ref, err := name.ParseReference(push, name.Insecure)
	if err != nil {
		return fmt.Errorf("-push: %w", err)
	}
	return remote.WriteIndex(ref, idx)
}
