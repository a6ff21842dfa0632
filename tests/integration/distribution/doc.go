//go:build integration

// Package distribution is the integration suites' distribution area: the release as users get it: chart archives, an OCI registry,
// `go install`, a chart outside the repository, helm lint, the chart READMEs,
// the Helm CLI against proxytest's render, and the Makefile itself.
//
// It needs the binaries `make tools` builds into bin/. Run only it with
// `make suite AREA=distribution`, or `go test -tags integration ./tests/integration/distribution/`;
// `make test` runs it beside the other areas, their tests sharing one set of
// slots (tests/harness/slots).
package distribution
