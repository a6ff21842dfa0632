package worktime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Work counts; waiting does not. (Both hold on a loaded machine: the busy loop
// runs until it has had 200 ms of CPU, however long that takes.)
func TestUsedCountsWorkNotWaiting(t *testing.T) {
	began := Used()
	time.Sleep(300 * time.Millisecond)
	assert.Less(t, Used()-began, 100*time.Millisecond, "a sleep is no work")

	began = Used()
	deadline := time.Now().Add(time.Minute)
	for Used()-began < 200*time.Millisecond {
		require.True(t, time.Now().Before(deadline), "a minute of a busy loop never counted 200 ms of work")
	}
}
