package tests

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

func TestComponentsValuesHelper(t *testing.T) {
	t.Run("an unknown component names the known ones", func(t *testing.T) {
		err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy+"contextCheck: {helper: proxykit.components.values, mode: root}\n"))
		assert.Contains(t, err, "proxykit.components.values: pass \"component\" NAME or \"keys\"")
	})
}
