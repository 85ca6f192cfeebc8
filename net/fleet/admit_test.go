package fleet

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// lineCounter is a slog handler that counts the records whose message starts with prefix.
type lineCounter struct {
	prefix string
	mu     sync.Mutex
	n      int
}

func (c *lineCounter) Enabled(context.Context, slog.Level) bool { return true }
func (c *lineCounter) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, c.prefix) {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}
	return nil
}
func (c *lineCounter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *lineCounter) WithGroup(string) slog.Handler      { return c }
func (c *lineCounter) lines() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// stranger holds control connections to addr from the address from without a word (it reads
// the host's hello and waits), dialling again 20 ms after each is closed, until stop.
func stranger(t *testing.T, addr, from string, stop <-chan struct{}, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := netOf(t).dialFrom(context.Background(), addr, from)
			if err == nil {
				done := make(chan struct{})
				go func() { io.Copy(io.Discard, nc); close(done) }()
				select {
				case <-done:
				case <-stop:
				}
				nc.Close()
				<-done
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
}

// TestControlPortNotWedged: strangers from 24 addresses hold 96 connections (more than the
// host's MaxHandshakes slots) that never finish the handshake and dial again as soon as one
// is closed; the real lobby, from its own address, connects at its first dial and starts a
// game, and the host's refusals are logged one line per reason and address per window, not
// one per connection.
func TestControlPortNotWedged(t *testing.T) { synctest.Test(t, testControlPortNotWedged) }

func testControlPortNotWedged(t *testing.T) {
	const addrs, each = 24, MaxHandshakesPerAddr
	if addrs*each <= MaxHandshakes {
		t.Fatalf("the test's %d strangers do not outnumber the %d slots", addrs*each, MaxHandshakes)
	}
	lines := &lineCounter{prefix: "control connection"}
	h := startHostWith(t, &fakeStarter{port: 5001}, 4, "", func(c *HostConfig) { c.Logger = slog.New(lines) })
	stop := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(stop); wg.Wait() }) // before the host stops
	for a := range addrs {
		for range each + 2 { // more than each address may hold, too
			stranger(t, h.addr, fmt.Sprintf("203.0.113.%d", a+1), stop, &wg)
		}
	}
	time.Sleep(time.Second) // the strangers hold every slot, and keep them
	synctest.Wait()
	if n := h.hs.held(); n != MaxHandshakes {
		t.Fatalf("%d connections in their handshake, want every slot (%d) held by strangers", n, MaxHandshakes)
	}
	t0 := time.Now()
	r := startRemote(t, h.addr) // Redial 10 ms
	for r.Up() != 1 {
		if time.Since(t0) > HostHandshakeTimeout {
			t.Fatalf("the lobby is not connected %v after it began, with strangers holding the control port", time.Since(t0))
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := r.StartGame(spec("ABCDE", 1)); err != nil {
		t.Fatalf("start while strangers hold the control port: %v", err)
	}
	time.Sleep(2 * time.Second)
	synctest.Wait()
	// Thousands refused by now (each stranger dials every 20 ms), in one log window: at most
	// one line per reason and address.
	if n, most := lines.lines(), (addrs+1)*5; n > most {
		t.Fatalf("%d log lines for the refused connections within one %v window, want at most one per reason and address (%d)", n, RefusedLogEvery, most)
	}
}

// TestControlHandshakeLimits: a connection that says nothing is closed HostHandshakeTimeout
// after it was accepted; one address holds at most MaxHandshakesPerAddr connections in their
// handshake (the next is closed at once, without the host's hello), while another address is
// served.
func TestControlHandshakeLimits(t *testing.T) { synctest.Test(t, testControlHandshakeLimits) }

func testControlHandshakeLimits(t *testing.T) {
	h := startHost(t, 4, 5001, "")
	type held struct {
		n    int
		err  error
		took time.Duration
	}
	open := func(from string) <-chan held {
		ch := make(chan held, 1)
		nc, err := netOf(t).dialFrom(context.Background(), h.addr, from)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		t0 := time.Now()
		go func() {
			b, err := io.ReadAll(nc)
			ch <- held{len(b), err, time.Since(t0)}
		}()
		return ch
	}
	var mine []<-chan held
	for range MaxHandshakesPerAddr {
		mine = append(mine, open("198.51.100.7"))
	}
	synctest.Wait()
	extra := open("198.51.100.7")
	other := open("198.51.100.8")
	synctest.Wait()
	select {
	case x := <-extra:
		if x.n != 0 || x.took != 0 {
			t.Fatalf("connection %d from one address: got %d bytes after %v, want it closed at once without a word", MaxHandshakesPerAddr+1, x.n, x.took)
		}
	default:
		t.Fatalf("connection %d from one address is held, want it refused (MaxHandshakesPerAddr %d)", MaxHandshakesPerAddr+1, MaxHandshakesPerAddr)
	}
	for i, ch := range append(mine, other) {
		x := <-ch
		if x.n != HostHelloSize || x.took != HostHandshakeTimeout {
			t.Fatalf("silent connection %d: %d bytes, closed after %v; want the hello (%d bytes), closed after HostHandshakeTimeout (%v)", i, x.n, x.took, HostHelloSize, HostHandshakeTimeout)
		}
	}
}
