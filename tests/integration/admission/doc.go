//go:build integration

// Package admission is the integration suites' admission area: proxy-policies in real admission: the native policy and both Kyverno
// engines (their CLIs and their controllers) on a loopback API server, every
// configuration and failure policy of the matrix, own settings merged alike by
// every engine, the CEL size limit, and the end-to-end install of every chart.
//
// It needs the binaries `make tools` builds into bin/. Run only it with
// `make suite AREA=admission`, or `go test -tags integration ./tests/integration/admission/`;
// `make test` runs it beside the other areas, their tests sharing one set of
// slots (tests/harness/slots).
package admission
