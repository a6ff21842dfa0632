package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTestPackageIsTheBinarys(t *testing.T) {
	assert.Equal(t, "github.com/proxykit/proxykit/tests/harness", testPackage())
}
