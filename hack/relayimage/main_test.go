package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The layout on disk and the index in a registry are the same index.
func TestRunWritesAndPushes(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "relay")
	require.NoError(t, os.WriteFile(bin, []byte("relay"), 0o755))
	reg := httptest.NewServer(registry.New())
	defer reg.Close()
	ref := strings.TrimPrefix(reg.URL, "http://") + "/proxykit/relay:0.19.0"
	out := filepath.Join(dir, "oci")
	require.NoError(t, run("linux/amd64="+bin+",linux/arm64="+bin, out, ref, "0.19.0"))

	p, err := layout.FromPath(out)
	require.NoError(t, err)
	top, err := p.ImageIndex()
	require.NoError(t, err)
	m, err := top.IndexManifest()
	require.NoError(t, err)
	require.Len(t, m.Manifests, 1)
	assert.Equal(t, "0.19.0", m.Manifests[0].Annotations["org.opencontainers.image.ref.name"])

	r, err := name.ParseReference(ref, name.Insecure)
	require.NoError(t, err)
	desc, err := remote.Get(r)
	require.NoError(t, err)
	assert.Equal(t, m.Manifests[0].Digest, desc.Digest, "the registry holds the layout's index")

	assert.ErrorContains(t, run("", out, "", ""), "-binaries")
	assert.ErrorContains(t, run("amd64="+bin, out, "", ""), "OS/ARCH=PATH")
}
