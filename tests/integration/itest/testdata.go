//go:build integration

package itest

import "github.com/proxykit/proxykit/tests/fixture"

// Testdata is a path in tests/integration/testdata, which the areas share.
func Testdata(elem ...string) string {
	return fixture.Path(append([]string{"tests", "integration", "testdata"}, elem...)...)
}
