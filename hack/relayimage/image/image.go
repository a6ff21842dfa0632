// Package image assembles the relay's image: no base, one layer with the
// static binary, run as nobody, one manifest per platform under an index.
package image

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Binary is a static proxykit-relay for one platform.
type Binary struct {
	Platform v1.Platform
	Path     string
}

// Entrypoint is where the binary sits in the image.
const Entrypoint = "/proxykit-relay"

// Image is the relay's image for one binary: reproducible (no timestamps but
// the epoch), so the same binary always gives the same digest.
func Image(b Binary, version string) (v1.Image, error) {
	raw, err := os.ReadFile(b.Path)
	if err != nil {
		return nil, err
	}
	if err := static(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Path, err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: Entrypoint[1:], Mode: 0o755, Size: int64(len(raw)), Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)}); err != nil {
		return nil, err
	}
	tw.Write(raw)
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = b.Platform.OS, b.Platform.Architecture, b.Platform.Variant
	cf.Config.Entrypoint = []string{Entrypoint}
	cf.Config.User = "65534:65534"
	cf.Config.ExposedPorts = map[string]struct{}{"3128/tcp": {}, "9090/tcp": {}}
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":   "proxykit-relay",
		"org.opencontainers.image.source":  "https://github.com/proxykit/proxykit",
		"org.opencontainers.image.version": version,
	}
	cf.Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	return mutate.ConfigFile(img, cf)
}

// static refuses an ELF program that asks for a loader: the image has no libc,
// so a binary built with cgo would not start in it.
func static(raw []byte) error {
	f, err := elf.NewFile(bytes.NewReader(raw))
	if err != nil {
		return nil // not ELF (a test's stand-in): nothing to check
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("dynamically linked: the image has no loader; build it with CGO_ENABLED=0")
		}
	}
	return nil
}

// Index is one Image per binary, each under its platform.
func Index(binaries []Binary, version string) (v1.ImageIndex, error) {
	if len(binaries) == 0 {
		return nil, fmt.Errorf("no binary given")
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, b := range binaries {
		img, err := Image(b, version)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", b.Platform.OS, b.Platform.Architecture, err)
		}
		platform := b.Platform
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &platform}})
	}
	return idx, nil
}
