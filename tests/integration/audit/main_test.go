//go:build integration

package audit

import (
	"testing"

	"github.com/proxykit/proxykit/tests/integration/itest"
)

func TestMain(m *testing.M) { itest.Main(m) }
