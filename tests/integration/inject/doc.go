//go:build integration

// Package inject is the integration suites' inject area: `proxykit inject` on charts nobody here wrote, through the post-renderers
// of Helm 3 and Helm 4, what it did shown to Helm users, Helm hooks with
// credentials, and the calls it covers.
//
// It needs the binaries `make tools` builds into bin/. Run only it with
// `make suite AREA=inject`, or `go test -tags integration ./tests/integration/inject/`;
// `make test` runs it beside the other areas, their tests sharing one set of
// slots (tests/harness/slots).
package inject
