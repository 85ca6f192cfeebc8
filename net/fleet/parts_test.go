package fleet

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/lobby/handoff"
)

func randBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestReplayParts: the lobby reassembles a replay only from its parts in order, each once,
// every one but the last full, within MaxReplayParts, one game's at a time; anything else
// refuses that game's replay (dropped at once: the memory held is released) and its later
// parts are ignored; the lobby never holds more than replay.MaxBytes for a host connection.
func TestReplayParts(t *testing.T) {
	file := randBytes(2*ReplayPartBytes+100, 1)
	parts := splitReplay(file)
	if len(parts) != 3 || len(parts[2]) != 100 || !bytes.Equal(bytes.Join(parts, nil), file) {
		t.Fatalf("splitReplay: %d parts", len(parts))
	}
	if splitReplay(nil) != nil || len(splitReplay(make([]byte, ReplayPartBytes))) != 1 {
		t.Fatal("splitReplay of an empty or one-part file")
	}
	full := make([]byte, ReplayPartBytes)

	t.Run("in order", func(t *testing.T) {
		var p replayParts
		for i, b := range parts {
			if err := p.add(7, i, len(parts), b); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := p.take(7); err != nil || !bytes.Equal(got, file) {
			t.Fatalf("take: %d bytes, %v", len(got), err)
		}
		if p.held() != 0 {
			t.Fatalf("%d bytes held after take", p.held())
		}
		if got, err := p.take(8); got != nil || err != nil {
			t.Fatalf("take of a game without parts: %v %v", got, err)
		}
	})

	refused := []struct {
		name string
		add  func(p *replayParts) error // the last add, refused
	}{
		{"duplicate", func(p *replayParts) error {
			p.add(7, 0, 3, full)
			p.add(7, 1, 3, full)
			return p.add(7, 1, 3, full)
		}},
		{"out of order", func(p *replayParts) error {
			p.add(7, 0, 3, full)
			return p.add(7, 2, 3, []byte{1})
		}},
		{"before part 0", func(p *replayParts) error { return p.add(7, 1, 3, full) }},
		{"oversized part", func(p *replayParts) error { return p.add(7, 0, 1, make([]byte, ReplayPartBytes+1)) }},
		{"empty part", func(p *replayParts) error { return p.add(7, 0, 1, nil) }},
		{"short part before the last", func(p *replayParts) error { return p.add(7, 0, 2, []byte{1}) }},
		{"too many parts", func(p *replayParts) error { return p.add(7, 0, MaxReplayParts+1, full) }},
		{"part past parts", func(p *replayParts) error { return p.add(7, 3, 3, full) }},
		{"parts changed", func(p *replayParts) error {
			p.add(7, 0, 3, full)
			return p.add(7, 1, 4, full)
		}},
		{"no game", func(p *replayParts) error { return p.add(0, 0, 1, full) }},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			var p replayParts
			err := c.add(&p)
			if err == nil || errors.Is(err, errRefusedBefore) {
				t.Fatalf("add: %v, want a refusal", err)
			}
			if p.held() != 0 {
				t.Fatalf("%d bytes held after the refusal", p.held())
			}
			if c.name == "no game" {
				return
			}
			if err := p.add(7, 0, 1, []byte{1}); !errors.Is(err, errRefusedBefore) {
				t.Fatalf("a later part of the refused game: %v", err)
			}
			if got, _ := p.take(7); got != nil {
				t.Fatalf("the refused game's replay came out: %d bytes", len(got))
			}
		})
	}

	t.Run("ended before its last part", func(t *testing.T) {
		var p replayParts
		p.add(7, 0, 3, full)
		if got, err := p.take(7); got != nil || err == nil {
			t.Fatalf("take of an incomplete replay: %d bytes, %v", len(got), err)
		}
		if p.held() != 0 {
			t.Fatalf("%d bytes held", p.held())
		}
	})

	t.Run("one game at a time", func(t *testing.T) {
		var p replayParts
		if err := p.add(1, 0, 2, full); err != nil {
			t.Fatal(err)
		}
		if err := p.add(2, 0, 1, []byte{9}); err == nil {
			t.Fatal("a second game's part while the first's replay is incomplete was taken")
		}
		if err := p.add(1, 1, 2, []byte{5}); err != nil {
			t.Fatalf("the first game's replay after the interleaved part: %v", err)
		}
		if got, err := p.take(1); err != nil || len(got) != ReplayPartBytes+1 {
			t.Fatalf("take: %d bytes, %v", len(got), err)
		}
		if got, err := p.take(2); got != nil || !errors.Is(err, errRefusedBefore) {
			t.Fatalf("take of the refused game: %v %v", got, err)
		}
		if err := p.add(2, 0, 1, []byte{9}); err != nil { // the refusal is forgotten at its game's end
			t.Fatal(err)
		}
	})

	t.Run("bounded", func(t *testing.T) {
		var p replayParts
		for i := range MaxReplayParts {
			if err := p.add(3, i, MaxReplayParts, full); err != nil {
				t.Fatal(err)
			}
			if p.held() > replay.MaxBytes {
				t.Fatalf("%d bytes held, more than replay.MaxBytes", p.held())
			}
		}
		if got, err := p.take(3); err != nil || len(got) != replay.MaxBytes {
			t.Fatalf("the largest replay: %d bytes, %v", len(got), err)
		}
	})
}

// TestReplayMessageFitsFrame: a full part's replay message, with the largest ids, fits a frame.
func TestReplayMessageFitsFrame(t *testing.T) {
	m := &Msg{Type: TypeReplay, Game: 1<<64 - 1, Part: MaxReplayParts - 1, Parts: MaxReplayParts, Data: make([]byte, ReplayPartBytes)}
	if n := len(encode(m)); n > MaxFrame {
		t.Fatalf("a full replay message is %d bytes, a frame holds %d", n, MaxFrame)
	}
}

type gameEnd struct {
	spec handoff.GameSpec
	end  GameEnd
	done bool // the game's Done was closed already when OnGameEnd ran
}

// endRecorder is a Remote's OnGameEnd that keeps what it is given.
type endRecorder struct {
	mu   sync.Mutex
	ends []gameEnd
	gs   map[string]handoff.Game // by code, set once started
}

func (e *endRecorder) onGameEnd(spec handoff.GameSpec, end GameEnd) {
	e.mu.Lock()
	defer e.mu.Unlock()
	done := false
	if g := e.gs[spec.Code]; g != nil {
		select {
		case <-g.Done():
			done = true
		default:
		}
	}
	e.ends = append(e.ends, gameEnd{spec, end, done})
}

func (e *endRecorder) started(code string, g handoff.Game) {
	e.mu.Lock()
	e.gs[code] = g
	e.mu.Unlock()
}

func (e *endRecorder) get() []gameEnd {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]gameEnd(nil), e.ends...)
}

// TestRecordAndReplayOverChannel: a host's ended game reaches the lobby's OnGameEnd with the
// host's record and the replay file byte for byte (here 100 KB: 4 parts), before the lobby
// sees the game done; a game without a replay comes with none; a lost host's games come
// as lost, without record.
func TestRecordAndReplayOverChannel(t *testing.T) { synctest.Test(t, testRecordAndReplayOverChannel) }

func testRecordAndReplayOverChannel(t *testing.T) {
	ln := netOf(t).listen()
	file := randBytes(100_000, 2)
	rec := &Record{Ticks: 4321, Slots: []SlotRecord{{Score: 1200, Kills: 12, Deaths: 1}, {Score: 300, Kills: 3, Deaths: 3, Continued: true, Left: true}}}
	st := &fakeStarter{port: 5000}
	var reported []handoff.GameSpec
	var mu sync.Mutex
	h := NewHost(HostConfig{Secret: testSecret, Starter: st, Logger: quiet(), Ping: 20 * time.Millisecond,
		Report: func(spec handoff.GameSpec, g handoff.Game) (*Record, []byte) {
			mu.Lock()
			reported = append(reported, spec)
			mu.Unlock()
			if spec.Code == "NREPL" {
				return rec, nil
			}
			return rec, file
		}})
	hctx, hcancel := context.WithCancel(context.Background())
	hdone := make(chan struct{})
	go func() { defer close(hdone); h.Serve(hctx, ln) }()
	defer func() { hcancel(); <-hdone }()

	e := &endRecorder{gs: map[string]handoff.Game{}}
	r := NewRemote(RemoteConfig{Hosts: []string{ln.Addr().String()}, Secret: testSecret, Logger: quiet(), Ping: 20 * time.Millisecond, Dial: netOf(t).dial,
		Redial: 10 * time.Millisecond, OnGameEnd: e.onGameEnd})
	rctx, rcancel := context.WithCancel(context.Background())
	rdone := make(chan struct{})
	go func() { defer close(rdone); r.Run(rctx) }()
	defer func() { rcancel(); <-rdone }()
	eventually(t, "host up", func() bool { return r.Up() == 1 })

	for i, code := range []string{"ABCDE", "NREPL"} {
		sp := spec(code, 2)
		g, err := r.StartGame(sp)
		if err != nil {
			t.Fatal(err)
		}
		e.started(code, g)
		st.games()[i].end(1)
		waitDone(t, g)
		ends := e.get()
		if len(ends) != i+1 {
			t.Fatalf("%d ends reported, want %d", len(ends), i+1)
		}
		got := ends[i]
		if got.done {
			t.Fatal("OnGameEnd ran after the game was done: GAME_ID could name a game not yet kept")
		}
		if got.spec.Code != code || got.end.Result != 1 || got.end.Lost || !reflect.DeepEqual(got.end.Record, rec) {
			t.Fatalf("end of %s: %+v", code, got)
		}
		if want := file; code == "NREPL" {
			if got.end.Replay != nil {
				t.Fatalf("a game without a replay came with %d bytes", len(got.end.Replay))
			}
		} else if !bytes.Equal(got.end.Replay, want) {
			t.Fatalf("replay: %d bytes, want %d byte for byte", len(got.end.Replay), len(want))
		}
	}
	mu.Lock()
	if len(reported) != 2 || reported[0].Members[1].Name != "pb" {
		t.Fatalf("Report got %+v", reported)
	}
	mu.Unlock()

	g, err := r.StartGame(spec("LSTGM", 1))
	if err != nil {
		t.Fatal(err)
	}
	hcancel() // the host goes: its game is lost
	<-hdone
	waitDone(t, g)
	ends := e.get()
	if last := ends[len(ends)-1]; len(ends) != 3 || last.spec.Code != "LSTGM" || !last.end.Lost || last.end.Result != 2 || last.end.Record != nil || last.end.Replay != nil {
		t.Fatalf("end of the lost game: %+v", ends)
	}
}

// TestBadReplayFromHost: a host that sends a duplicate part, or a record that does not fit the
// game, does not get it kept — the game still ends with its result, without the bad part —
// and its connection stays up for its other games.
func TestBadReplayFromHost(t *testing.T) { synctest.Test(t, testBadReplayFromHost) }

func testBadReplayFromHost(t *testing.T) {
	ln := netOf(t).listen()
	defer ln.Close()
	var host sync.WaitGroup // the fake host's goroutines, ended before the test (its bubble)
	defer host.Wait()
	part := randBytes(ReplayPartBytes, 3)
	good := &Record{Ticks: 10, Slots: []SlotRecord{{Score: 5}}}
	scripts := [][]*Msg{
		{ // a duplicate part: the replay is refused, the record kept
			{Type: TypeReplay, Part: 0, Parts: 2, Data: part},
			{Type: TypeReplay, Part: 0, Parts: 2, Data: part},
			{Type: TypeReplay, Part: 1, Parts: 2, Data: []byte{1}},
			{Type: TypeEnded, Result: 1, Record: good},
		},
		{ // a record of 2 slots for a 1-player game: refused, the replay kept
			{Type: TypeReplay, Part: 0, Parts: 1, Data: []byte("replay")},
			{Type: TypeEnded, Result: 1, Record: &Record{Slots: []SlotRecord{{Score: 1}, {Score: 2}}}},
		},
		{ // ended after one of its two parts: the replay is refused
			{Type: TypeReplay, Part: 0, Parts: 2, Data: part},
			{Type: TypeEnded, Result: 0, Record: good},
		},
	}
	host.Add(1)
	go func() {
		defer host.Done()
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		c, err := ServerHandshake(nc, testSecret, nil)
		if err != nil {
			return
		}
		var wmu sync.Mutex
		send := func(m *Msg) {
			wmu.Lock()
			defer wmu.Unlock()
			c.Write(encode(m))
		}
		send(&Msg{Type: TypeLoad, Load: &Load{Capacity: 4}})
		host.Add(1)
		go func() {
			defer host.Done()
			tk := time.NewTicker(10 * time.Millisecond)
			defer tk.Stop()
			for range tk.C {
				wmu.Lock()
				err := c.Write(encode(&Msg{Type: TypeLoad, Load: &Load{Capacity: 4}}))
				wmu.Unlock()
				if err != nil {
					return
				}
			}
		}()
		n := 0
		for {
			b, err := c.Read(time.Now().Add(time.Minute))
			if err != nil {
				return
			}
			m, err := decode(b)
			if err != nil || m.Type != TypeStart {
				continue
			}
			send(&Msg{Type: TypeReply, ID: m.ID, Port: 6000, Load: &Load{Games: 1, Capacity: 4}})
			for _, s := range scripts[n] {
				s := *s
				s.Game = m.ID
				send(&s)
			}
			n++
		}
	}()
	e := &endRecorder{gs: map[string]handoff.Game{}}
	r := NewRemote(RemoteConfig{Hosts: []string{ln.Addr().String()}, Secret: testSecret, Logger: quiet(), Ping: 20 * time.Millisecond, Dial: netOf(t).dial,
		Redial: 10 * time.Millisecond, OnGameEnd: e.onGameEnd})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	defer func() { cancel(); <-done }()
	eventually(t, "host up", func() bool { return r.Up() == 1 })
	for i := range scripts {
		g, err := r.StartGame(spec("GAME"+string(rune('A'+i)), 1))
		if err != nil {
			t.Fatal(err)
		}
		waitDone(t, g)
	}
	ends := e.get()
	if len(ends) != 3 {
		t.Fatalf("%d ends, want 3", len(ends))
	}
	if d := ends[0].end; d.Replay != nil || !reflect.DeepEqual(d.Record, good) || d.Result != 1 {
		t.Fatalf("duplicate part: %+v", d)
	}
	if d := ends[1].end; string(d.Replay) != "replay" || d.Record != nil || d.Result != 1 {
		t.Fatalf("bad record: %+v", d)
	}
	if d := ends[2].end; d.Replay != nil || d.Record == nil {
		t.Fatalf("incomplete replay: %+v", d)
	}
	if r.Up() != 1 {
		t.Fatal("a bad replay dropped the host's connection")
	}
}

// FuzzReplayParts: any sequence of parts and ends a host sends — each op 4 bytes: game (1..3),
// part, parts and a size class — never panics, never holds more than replay.MaxBytes, and a
// replay that comes out is exactly its parts in order.
func FuzzReplayParts(f *testing.F) {
	f.Add([]byte{1, 0, 2, 0, 1, 1, 2, 1, 1, 0xff, 0, 0})
	f.Add([]byte{1, 0, 3, 0, 1, 0, 3, 0, 2, 0, 1, 1, 1, 0xff, 0, 0, 2, 0xff, 0, 0})
	full := make([]byte, ReplayPartBytes)
	f.Fuzz(func(t *testing.T, ops []byte) {
		var p replayParts
		got := map[uint64][]byte{} // the parts taken so far, by game
		for len(ops) >= 4 {
			game, part, parts, size := uint64(ops[0]%3+1), int(ops[1]), int(ops[2]), ops[3]
			ops = ops[4:]
			if part == 0xff { // the game's ended
				b, err := p.take(game)
				if err == nil && b != nil && !bytes.Equal(b, got[game]) {
					t.Fatalf("game %d: %d bytes out, %d taken in", game, len(b), len(got[game]))
				}
				delete(got, game)
				continue
			}
			data := full
			if size%2 == 1 {
				data = full[:int(size)%ReplayPartBytes+1]
			}
			if p.add(game, part, parts, data) == nil {
				got[game] = append(got[game], data...)
			} else if p.game != game {
				delete(got, game)
			}
			if p.held() > replay.MaxBytes {
				t.Fatalf("%d bytes held", p.held())
			}
		}
	})
}

// held is the replay bytes held now (the tests pin the bound).
func (p *replayParts) held() int { return cap(p.buf) }
