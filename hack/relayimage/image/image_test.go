package image

import (
	"archive/tar"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One layer with the binary at the entrypoint, run as nobody, the same digest
// every time, one manifest per platform under the index.
func TestIndex(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "relay")
	require.NoError(t, os.WriteFile(bin, []byte("\x7fELF static relay"), 0o755))
	binaries := []Binary{
		{Platform: v1.Platform{OS: "linux", Architecture: "amd64"}, Path: bin},
		{Platform: v1.Platform{OS: "linux", Architecture: "arm64"}, Path: bin},
	}
	idx, err := Index(binaries, "0.19.0")
	require.NoError(t, err)
	again, err := Index(binaries, "0.19.0")
	require.NoError(t, err)
	d1, _ := idx.Digest()
	d2, _ := again.Digest()
	assert.Equal(t, d1, d2, "reproducible: the same binaries give the same digest")

	m, err := idx.IndexManifest()
	require.NoError(t, err)
	require.Len(t, m.Manifests, 2)
	assert.Equal(t, "arm64", m.Manifests[1].Platform.Architecture)

	img, err := idx.Image(m.Manifests[0].Digest)
	require.NoError(t, err)
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, []string{Entrypoint}, cf.Config.Entrypoint)
	assert.Equal(t, "65534:65534", cf.Config.User)
	assert.Equal(t, "amd64", cf.Architecture)
	assert.Equal(t, "0.19.0", cf.Config.Labels["org.opencontainers.image.version"])
	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1, "no base image: the binary alone")
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	tr := tar.NewReader(rc)
	h, err := tr.Next()
	require.NoError(t, err)
	assert.Equal(t, "proxykit-relay", h.Name)
	assert.Equal(t, int64(0o755), h.Mode)
	body, _ := io.ReadAll(tr)
	assert.Equal(t, "\x7fELF static relay", string(body))
	_, err = tr.Next()
	assert.Equal(t, io.EOF, err)

	// a binary that needs a loader (the machine's ls) would not start in an
	// image without libc
	ls, err := exec.LookPath("ls")
	require.NoError(t, err)
	_, err = Index([]Binary{{Platform: v1.Platform{OS: "linux", Architecture: "amd64"}, Path: ls}}, "x")
	assert.ErrorContains(t, err, "CGO_ENABLED=0")

	_, err = Index(nil, "x")
	assert.Error(t, err)
	_, err = Index([]Binary{{Path: filepath.Join(dir, "missing")}}, "x")
	assert.Error(t, err)
}
