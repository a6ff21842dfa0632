package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPublicSuffix(t *testing.T) {
	for name, want := range map[string]Suffix{
		"com": SuffixICANN, ".io": SuffixICANN, "app.": SuffixICANN, "co.uk": SuffixICANN, "CO.UK": SuffixICANN,
		"security": SuffixICANN, "storage": SuffixICANN, "dev": SuffixICANN, "ck": SuffixICANN, "foo.ck": SuffixICANN,
		"github.io": SuffixPrivate, "vercel.app": SuffixPrivate, "herokuapp.com": SuffixPrivate,
		// names of the cluster and of corporate networks, and ordinary domains
		"svc": SuffixNone, "cluster.local": SuffixNone, "local": SuffixNone, "internal": SuffixNone, "corp": SuffixNone,
		"kubernetes": SuffixNone, "localhost": SuffixNone, "web": SuffixNone, "vault": SuffixNone,
		"example.com": SuffixNone, "amazonaws.com": SuffixNone, "www.ck": SuffixNone, "10.0.0.1": SuffixNone, "": SuffixNone,
	} {
		assert.Equal(t, want, PublicSuffix(name), name)
	}
}

func TestPublic(t *testing.T) {
	for _, entry := range []string{"*", "com", ".io", "*.app", "co.uk", "io:443", ".dev", "0.0.0.0/0", "::/0", "128.0.0.0/1", "8.0.0.0/7", "2000::/3", "::ffff:0:0/96"} {
		why, public := Public(entry)
		assert.True(t, public, entry)
		assert.NotEmpty(t, why, entry)
	}
	// the cluster's own entries, corporate domains, one holder's network, private
	// space however wide, and a provider's suffix an operator bypasses on purpose
	for _, entry := range []string{"localhost", "svc", ".svc", "cluster.local.", ".corp.example", "example.com:8080", "10.0.0.0/8", "17.0.0.0/8",
		"fd00::/8", "fc00::/7", "2001:db8::/32", "169.254.169.254", "[::1]", "[fd00::1]:5000", "::1", "googleapis.com", ".s3.us-east-1.amazonaws.com", "github.io"} {
		_, public := Public(entry)
		assert.False(t, public, entry)
	}
}

func TestPublicJavaPattern(t *testing.T) {
	for _, p := range []string{"*", "*.com", "*com", "*.", "*.co.uk", "1*", "a*", " *.app "} {
		assert.True(t, PublicJavaPattern(p), p)
	}
	for _, p := range []string{"", "10.*", "*.corp.example", "*.svc", "localhost", "*.github.io", "192.168.*"} {
		assert.False(t, PublicJavaPattern(p), p)
	}
}
