package relay

import (
	"bufio"
	"io"
	"net"
	"sync"
	"time"
)

// Bounds of the kept upstream connections.
const (
	poolMaxIdle  = 32
	poolIdleTime = 30 * time.Second
)

// pooledConn is an upstream connection between plain requests, with the
// fingerprint of the credentials that opened it.
type pooledConn struct {
	conn net.Conn
	br   *bufio.Reader
	fp   [32]byte
	idle time.Time
}

// upstreamPool keeps upstream connections for plain requests. A connection is
// handed out only for the credentials that opened it: after a rotation the
// next request opens a new one, and older ones are closed as they come up.
type upstreamPool struct {
	mu   sync.Mutex
	idle []pooledConn
}

func (p *upstreamPool) get(fp [32]byte) (pooledConn, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.idle) > 0 {
		pc := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if pc.fp == fp && time.Since(pc.idle) < poolIdleTime {
			return pc, true
		}
		pc.conn.Close()
	}
	return pooledConn{}, false
}

func (p *upstreamPool) put(pc pooledConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= poolMaxIdle {
		pc.conn.Close()
		return
	}
	pc.idle = time.Now()
	p.idle = append(p.idle, pc)
}

// keptBody is a response body read from a pooled connection: read to its end
// and closed, the connection goes back to the pool; otherwise it is closed.
type keptBody struct {
	io.ReadCloser
	pool *upstreamPool
	conn pooledConn
	keep bool
	eof  bool
	done bool
}

func (b *keptBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *keptBody) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	err := b.ReadCloser.Close()
	if b.keep && b.eof && b.conn.br.Buffered() == 0 {
		b.pool.put(b.conn)
	} else {
		b.conn.conn.Close()
	}
	return err
}
