//go:build integration

// Package audit is the integration suites' audit area: day 2 on a live cluster: `proxykit discover` and `proxykit audit`
// against a loopback API server, and a rotated password reaching what runs.
//
// It needs the binaries `make tools` builds into bin/. Run only it with
// `make suite AREA=audit`, or `go test -tags integration ./tests/integration/audit/`;
// `make test` runs it beside the other areas, their tests sharing one set of
// slots (tests/harness/slots).
package audit
