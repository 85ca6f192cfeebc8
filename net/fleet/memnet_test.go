package fleet

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
)

// memNet is an in-memory network of control addresses (net.Pipe connections), one per test.
// The fleet's tests run in a testing/synctest bubble over it: the heartbeats (a host silent for
// 5 pings is down), StartTimeout, the redials and HandshakeTimeout take virtual time, which
// passes only when every goroutine of the test waits, so a slow or busy machine cannot make a
// peer look silent. TCP itself is the end-to-end tests' (net/server, cmd/rtype-server).
type memNet struct {
	mu    sync.Mutex
	next  int
	dials int
	ls    map[string]*memListener
	cut   map[string]bool // partitioned addresses (partition): dials time out
}

// errUnreachable is a dial to a partitioned address: it times out (no answer, not refused).
var errUnreachable = fmt.Errorf("memnet: dial: %w", os.ErrDeadlineExceeded)

// partition cuts addr off the network: its listener's connections made so far are closed by
// the caller (the host's side), and new dials time out until heal.
func (n *memNet) partition(addr string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cut == nil {
		n.cut = map[string]bool{}
	}
	n.cut[addr] = true
}

// heal ends partition(addr).
func (n *memNet) heal(addr string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.cut, addr)
}

var memNets sync.Map // *testing.T → *memNet

// netOf is t's in-memory network.
func netOf(t *testing.T) *memNet {
	if n, ok := memNets.Load(t); ok {
		return n.(*memNet)
	}
	n := &memNet{ls: map[string]*memListener{}}
	memNets.Store(t, n)
	t.Cleanup(func() { memNets.Delete(t) })
	return n
}

// listen opens a listener on a fresh loopback-looking address ("127.0.0.1:7000" on).
func (n *memNet) listen() *memListener {
	n.mu.Lock()
	defer n.mu.Unlock()
	addr := memAddr(fmt.Sprintf("127.0.0.1:%d", 7000+n.next))
	n.next++
	l := &memListener{n: n, addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
	n.ls[string(addr)] = l
	return l
}

// errRefused is a dial where nothing listens: ECONNREFUSED, as TCP has it (the lobby then
// knows the host's process is gone).
var errRefused = fmt.Errorf("memnet: %w", syscall.ECONNREFUSED)

// lobbyAddr is the address the host sees a lobby's connections come from (dial).
const lobbyAddr = "10.0.0.1"

// dial connects to addr's listener (RemoteConfig.Dial) from lobbyAddr: refused when nothing
// listens there.
func (n *memNet) dial(ctx context.Context, addr string) (net.Conn, error) {
	return n.dialFrom(ctx, addr, lobbyAddr)
}

// dialFrom is dial from the address from (the host part of the remote address the host sees).
func (n *memNet) dialFrom(ctx context.Context, addr, from string) (net.Conn, error) {
	n.mu.Lock()
	n.dials++
	remote := memAddr(net.JoinHostPort(from, strconv.Itoa(1024+n.dials%60000)))
	l, cut := n.ls[addr], n.cut[addr]
	n.mu.Unlock()
	if cut {
		return nil, errUnreachable
	}
	if l == nil {
		return nil, errRefused
	}
	a, b := net.Pipe()
	select {
	case l.conns <- fromConn{b, remote}:
		return a, nil
	case <-l.done:
		return nil, errRefused
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// fromConn is the host's end of a connection, from its remote address.
type fromConn struct {
	net.Conn
	remote memAddr
}

func (c fromConn) RemoteAddr() net.Addr { return c.remote }

type memListener struct {
	n     *memNet
	addr  memAddr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() {
		l.n.mu.Lock()
		delete(l.n.ls, string(l.addr))
		l.n.mu.Unlock()
		close(l.done)
	})
	return nil
}

func (l *memListener) Addr() net.Addr { return l.addr }

type memAddr string

func (a memAddr) Network() string { return "mem" }
func (a memAddr) String() string  { return string(a) }

// listenAt opens a listener on addr (a host that comes back where it was).
func (n *memNet) listenAt(addr string) *memListener {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := &memListener{n: n, addr: memAddr(addr), conns: make(chan net.Conn), done: make(chan struct{})}
	n.ls[addr] = l
	return l
}

// dialCount is the number of dials made on n so far.
func (n *memNet) dialCount() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.dials
}
