package slots

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// order lets tests arrive through hold within the gather window, one slot at
// a time, and says in which order they got it.
func order(hold func(Test) func(), tests ...Test) []string {
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	for _, test := range tests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release := hold(test)
			mu.Lock()
			got = append(got, test.Name)
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
			release()
		}()
		time.Sleep(5 * time.Millisecond) // arrivals in the order given
	}
	wg.Wait()
	return got
}

// earlierRun writes an earlier run's records, the last of each test winning.
func earlierRun(t *testing.T) string {
	file := filepath.Join(t.TempDir(), "held.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"package":"p","test":"short","seconds":1}
{"package":"p","test":"long","seconds":2}
{"package":"p","test":"long","seconds":90}
{"package":"other","test":"new","seconds":500}
{"package":"q","test":"middle","seconds":30}
not a record
`), 0o644))
	return file
}

func TestSlotsStartTheLongestFirst(t *testing.T) {
	file := earlierRun(t)
	got := order(New(1, file).Hold, Test{"p", "short"}, Test{"p", "new"}, Test{"q", "middle"}, Test{"p", "long"})
	assert.Equal(t, []string{"long", "middle", "short", "new"}, got, "the longest of any package first, a test without a record last")

	held := readHeld(file)
	for _, name := range []string{"short", "long", "new"} {
		seconds := held[Test{"p", name}]
		assert.True(t, seconds > 0 && seconds < 5, "this run's records appended, each the time it held its slot (10 ms here): %s %v", name, seconds)
	}
	assert.Equal(t, 500.0, held[Test{"other", "new"}], "another package's record stays")
}

func TestSlotsWithoutRecordsGoInArrivalOrder(t *testing.T) {
	assert.Equal(t, []string{"a", "b", "c"}, order(New(1, "").Hold, Test{"p", "a"}, Test{"p", "b"}, Test{"p", "c"}))
}

func TestSlotsBoundTheTestsRunningAtOnce(t *testing.T) {
	s := New(2, "")
	var mu sync.Mutex
	running, most := 0, 0
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release := s.Hold(Test{"p", "t"})
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
			release()
		}()
	}
	wg.Wait()
	assert.Equal(t, 2, most)
}

func TestHeldRecordsAreCompacted(t *testing.T) {
	file := filepath.Join(t.TempDir(), "held.json")
	var b strings.Builder
	for i := 0; i < 300; i++ {
		b.WriteString(`{"package":"p","test":"a","seconds":1}` + "\n")
	}
	b.WriteString(`{"package":"p","test":"a","seconds":7}` + "\n" + `{"package":"o","test":"a","seconds":3}` + "\n")
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))
	assert.Equal(t, map[Test]float64{{"p", "a"}: 7, {"o", "a"}: 3}, readHeld(file))
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, `{"package":"o","test":"a","seconds":3}`+"\n"+`{"package":"p","test":"a","seconds":7}`+"\n", string(data),
		"one record per package and test once past a few runs")
}
