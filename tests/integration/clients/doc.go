//go:build integration

// Package clients is the integration suites' clients area: every client family's NO_PROXY model against the real client through
// a real proxy in a private network namespace: NO_PROXY, gRPC, IPv6 literals,
// public suffixes, credentials, an intercepting proxy's CA, the JVM's flags,
// the relay's upstream schemes.
//
// It needs the binaries `make tools` builds into bin/. Run only it with
// `make suite AREA=clients`, or `go test -tags integration ./tests/integration/clients/`;
// `make test` runs it beside the other areas, their tests sharing one set of
// slots (tests/harness/slots).
package clients
