package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWords(t *testing.T) {
	assert.Equal(t, "reads, read", "read"+verbS(1)+", read"+verbS(2))
	assert.Equal(t, "container, containers", "container"+nounS(1)+", container"+nounS(3))
	assert.Equal(t, "is, are", isAre(1)+", "+isAre(0))
	assert.Equal(t, "and 4 more", andMore(4))
}
