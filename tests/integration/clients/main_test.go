//go:build integration

package clients

import (
	"testing"

	"github.com/proxykit/proxykit/tests/integration/itest"
)

func TestMain(m *testing.M) { itest.Main(m) }
