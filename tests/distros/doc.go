// Package distros holds the node suite's distribution tests: cluster-proxy's
// node output for each distribution, rendered by the project's Helm (bin/helm)
// from one set of values, is read by that distribution's own parser (Talos's
// machinery package for its machine-config patch) and its NO_PROXY judged by
// the matcher its components use. A module of its own, so that the
// distributions' packages stay out of proxykit's dependencies; `make test` runs
// it (`cd tests/distros && go test ./...`).
package distros
