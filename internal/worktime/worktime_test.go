package worktime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Work counts; waiting does not.
func TestUsedCountsWorkNotWaiting(t *testing.T) {
	began := Used()
	time.Sleep(300 * time.Millisecond)
	slept := Used() - began
	began = Used()
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
	}
	worked := Used() - began
	assert.Less(t, slept, 100*time.Millisecond, "a sleep is no work")
	assert.Greater(t, worked, 100*time.Millisecond, "a busy loop of 300 ms is")
}
