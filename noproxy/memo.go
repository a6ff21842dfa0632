package noproxy

import "sync"

// memo keeps what a NO_PROXY value parses to, by the value: a check asks many
// targets of the few values a chart's containers share, and parsing a long
// NO_PROXY for each target made the work grow with targets times entries.
// Bounded: past maxMemo values it starts again.
type memo[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

const maxMemo = 4096

func (c *memo[T]) get(key string, build func() T) T {
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = build()
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxMemo {
		c.m = map[string]T{}
	}
	c.m[key] = v
	c.mu.Unlock()
	return v
}
