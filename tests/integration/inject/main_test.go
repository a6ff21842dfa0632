//go:build integration

package inject

import (
	"testing"

	"github.com/proxykit/proxykit/tests/integration/itest"
)

func TestMain(m *testing.M) { itest.Main(m) }
