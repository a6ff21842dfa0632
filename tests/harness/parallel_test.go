package harness

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

// order lets names arrive at s within the gather window, one slot at a time,
// and says in which order they got it.
func order(s *slots, names ...string) []string {
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.acquire(name)
			mu.Lock()
			got = append(got, name)
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
			s.release(name, time.Second)
		}()
		time.Sleep(5 * time.Millisecond) // arrivals in the order given
	}
	wg.Wait()
	return got
}

func TestSlotsStartTheLongestFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "held.json")
	// an earlier run's records, the last of each test winning
	require.NoError(t, os.WriteFile(file, []byte(`{"package":"p","test":"short","seconds":1}
{"package":"p","test":"long","seconds":2}
{"package":"p","test":"long","seconds":90}
{"package":"other","test":"new","seconds":500}
{"package":"p","test":"middle","seconds":30}
not a record
`), 0o644))
	got := order(newSlots(1, file, "p"), "short", "new", "middle", "long")
	assert.Equal(t, []string{"long", "middle", "short", "new"}, got, "the longest first, a test without a record of its package last")

	held := readHeld(file, "p")
	assert.Equal(t, map[string]float64{"short": 1, "long": 1, "middle": 1, "new": 1}, held, "this run's records appended, each the time it held its slot")
}

func TestSlotsWithoutRecordsGoInArrivalOrder(t *testing.T) {
	assert.Equal(t, []string{"a", "b", "c"}, order(newSlots(1, "", "p"), "a", "b", "c"))
}

func TestSlotsBoundTheTestsRunningAtOnce(t *testing.T) {
	s := newSlots(2, "", "p")
	var mu sync.Mutex
	running, most := 0, 0
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.acquire("t")
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
			s.release("t", 0)
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
	assert.Equal(t, map[string]float64{"a": 7}, readHeld(file, "p"))
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, `{"package":"o","test":"a","seconds":3}`+"\n"+`{"package":"p","test":"a","seconds":7}`+"\n", string(data),
		"one record per package and test once past a few runs")
}

func TestTestPackageIsTheBinarys(t *testing.T) {
	assert.Equal(t, "github.com/proxykit/proxykit/tests/harness", testPackage())
}
