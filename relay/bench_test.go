package relay

import (
	"io"
	"net/http"
	"net/url"
	"testing"
)

// BenchmarkRelay is the relay's added cost per request and per CONNECT: a
// client through the relay to the upstream, against the same client sending
// the same requests to the upstream itself with Basic credentials in its URL
// (what Pods do without a relay). Plain requests keep the client's connection;
// each HTTPS request opens a tunnel of its own. make bench prints the ratios.
func BenchmarkRelay(b *testing.B) {
	for _, tc := range []struct {
		name   string
		scheme Scheme
		relay  bool
	}{
		{"direct-basic", SchemeBasic, false},
		{"relay-basic", SchemeBasic, true},
		{"relay-ntlm", SchemeNTLM, true},
	} {
		s := newSetup(b, tc.scheme, nil)
		proxy := s.client.Transport.(*http.Transport).Proxy
		if !tc.relay {
			proxy = http.ProxyURL(&url.URL{Scheme: "http", User: url.UserPassword(testUser, testPassword), Host: s.upstream.addr})
		}
		plain := s.client.Transport.(*http.Transport).Clone()
		plain.Proxy = proxy
		tunnel := plain.Clone()
		tunnel.DisableKeepAlives = true
		for _, kind := range []struct {
			name string
			tr   *http.Transport
			url  string
		}{{"http", plain, s.plain}, {"connect", tunnel, s.tls}} {
			b.Run(tc.name+"/"+kind.name, func(b *testing.B) {
				client := &http.Client{Transport: kind.tr}
				for b.Loop() {
					resp, err := client.Get(kind.url)
					if err != nil {
						b.Fatal(err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Fatal(resp.Status)
					}
				}
			})
		}
	}
}
