package game

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/rtype/rtype/ecs"
)

// Wire layouts of docs/PROTOCOL.md §4 "Component list v3", written out by hand.
func TestReplicatedWireLayout(t *testing.T) {
	w := ecs.NewWorld()
	c := RegisterComponents(w)
	e := w.Create()
	c.Position.Set(e, Position{100, 540})
	c.Velocity.Set(e, Velocity{-1, 0.5})
	c.Kind.Set(e, Kind{Kind: KindEnemy, Variant: EnemyTurret})
	c.Player.Set(e, Player{Slot: 2, Lives: 3, Flags: PlayerInvulnerable, ChargeFrom: 0x0a0b0c0d, Score: 0x01020304, Laser: 1, Speed: 2, Missile: 1})
	c.Health.Set(e, Health{HP: 0x0102, MaxHP: 0x0304})
	c.Force.Set(e, Force{Owner: ecs.Entity(0x0000000200000005), Mode: ForceBack, Level: 3})
	c.Boss.Set(e, Boss{Phase: 2, WeakOpen: 1})
	c.Stage.Set(e, StageState{Section: 4})
	tests := []struct {
		id   ecs.ComponentID
		want []byte
	}{
		// Seed 002's example: x=100.0, y=540.0.
		{CompPosition, []byte{0x00, 0x00, 0xc8, 0x42, 0x00, 0x00, 0x07, 0x44}},
		{CompVelocity, []byte{0x00, 0x00, 0x80, 0xbf, 0x00, 0x00, 0x00, 0x3f}},
		{CompKind, []byte{byte(KindEnemy), EnemyTurret}},
		{CompPlayer, []byte{2, 3, 1, 1, 2, 1, 0x04, 0x03, 0x02, 0x01, 0x0d, 0x0c, 0x0b, 0x0a}},
		{CompHealth, []byte{0x02, 0x01, 0x04, 0x03}},
		{CompForce, []byte{0x05, 0, 0, 0, 0x02, 0, 0, 0, 2, 3}},
		{CompBoss, []byte{2, 1}},
		{CompStage, []byte{4}},
	}
	for _, tc := range tests {
		st := w.Store(tc.id)
		if st == nil {
			t.Fatalf("component %d not registered", tc.id)
		}
		if st.Flags()&ecs.Replicated == 0 {
			t.Errorf("component %d not replicated", tc.id)
		}
		if st.Size() != len(tc.want) {
			t.Errorf("component %d size %d, want %d", tc.id, st.Size(), len(tc.want))
		}
		got := st.AppendWire(nil, e)
		if !bytes.Equal(got, tc.want) {
			t.Errorf("component %d wire % x, want % x", tc.id, got, tc.want)
		}
		// Round trip through a mirror world.
		mw := ecs.NewWorld()
		RegisterComponents(mw)
		if err := mw.CreateWithID(e); err != nil {
			t.Fatal(err)
		}
		if err := mw.Store(tc.id).SetWire(e, got); err != nil {
			t.Fatalf("component %d SetWire: %v", tc.id, err)
		}
		if back := mw.Store(tc.id).AppendWire(nil, e); !bytes.Equal(back, got) {
			t.Errorf("component %d round trip % x -> % x", tc.id, got, back)
		}
		// Wrong sizes are errors, not panics.
		for _, n := range []int{0, len(tc.want) - 1, len(tc.want) + 1} {
			if err := mw.Store(tc.id).SetWire(e, make([]byte, n)); err == nil {
				t.Errorf("component %d accepted %d bytes", tc.id, n)
			}
		}
	}
	for _, st := range w.Stores() {
		if st.ID() >= 20 && st.Flags()&ecs.Replicated != 0 {
			t.Errorf("server-only component %d is replicated", st.ID())
		}
		if st.ID() > 9 && st.ID() < 20 {
			t.Errorf("unexpected component id %d", st.ID())
		}
	}
}

func TestCodecRejectsBadValues(t *testing.T) {
	nan := math.Float32bits(float32(math.NaN()))
	inf := math.Float32bits(float32(math.Inf(1)))
	le32 := func(v uint32) []byte { return le.AppendUint32(nil, v) }
	tests := []struct {
		name string
		id   ecs.ComponentID
		b    []byte
	}{
		{"position NaN x", CompPosition, append(le32(nan), 0, 0, 0, 0)},
		{"position Inf y", CompPosition, append([]byte{0, 0, 0, 0}, le32(inf)...)},
		{"velocity NaN", CompVelocity, append(le32(nan), 0, 0, 0, 0)},
		{"player slot 4", CompPlayer, []byte{4, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"player laser 4", CompPlayer, []byte{0, 3, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"player speed 4", CompPlayer, []byte{0, 3, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"force mode 3", CompForce, []byte{1, 0, 0, 0, 1, 0, 0, 0, 3, 1}},
	}
	w := ecs.NewWorld()
	RegisterComponents(w)
	e := w.Create()
	for _, tc := range tests {
		err := w.Store(tc.id).SetWire(e, tc.b)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if ce := (*CodecError)(nil); !errors.As(err, &ce) {
			t.Errorf("%s: error %T %v, want *CodecError", tc.name, err, err)
		}
	}
}

// Server-only codecs round-trip every field (Hash depends on it).
func TestServerOnlyCodecs(t *testing.T) {
	sh := Ship{Prev: 3, Input: 17, Cooldown: 5, Held: 300, Invuln: 7, Respawn: 9, Force: 0x100000002, Bits: [2]ecs.Entity{0x200000005, 0x300000006}}
	en := Enemy{Type: 3, Drop: 2, Age: 70000, BaseY: 1.5, Speed: 320, Amp: 40, FireCD: 3, FireIvl: 90, Score: 300, HitBy: 77, Surface: SurfaceCeil, State: 1, Timer: 33, WalkVX: -70}
	bc := BossCtl{Age: 1 << 20, PhaseAt: 99, FireCD: 4, OpenCD: 5, Dying: 6, Angle: 4096, Weak: 1<<32 | 3, BaseY: 540, Parts: 12}
	checkRoundTrip(t, shipCodec{}, sh)
	checkRoundTrip(t, enemyCodec{}, en)
	checkRoundTrip(t, shotCodec{}, Shot{Damage: 16, Slot: 3, Pierce: 1, Hit: 1})
	checkRoundTrip(t, lifetimeCodec{}, Lifetime{Ticks: 40})
	checkRoundTrip(t, forceCtlCodec{}, ForceCtl{Recall: 1, Lock: 20, Back: 1, FireCD: 7})
	checkRoundTrip(t, guideCodec{}, Guide{Mode: GuideCrawl, Left: 2, Surf: SurfFloor, Age: 300, Col: -1, Speed: -1200.5})
	checkRoundTrip(t, capsuleCodec{}, Capsule{Age: 1 << 20})
	checkRoundTrip(t, bossCtlCodec{}, bc)
}

func checkRoundTrip[T comparable](t *testing.T, c ecs.Codec[T], v T) {
	t.Helper()
	b := c.Append(nil, &v)
	if len(b) != c.Size() {
		t.Fatalf("%T: encoded %d bytes, Size %d", v, len(b), c.Size())
	}
	var back T
	if err := c.Parse(b, &back); err != nil || back != v {
		t.Errorf("%T: round trip %+v -> %+v (%v)", v, v, back, err)
	}
	if err := c.Parse(b[1:], &back); err == nil {
		t.Errorf("%T: short input accepted", v)
	}
}

func TestEntityKindString(t *testing.T) {
	if KindEnemyBullet.String() != "enemy-bullet" || KindStage.String() != "stage" || EntityKind(200).String() != "kind(200)" {
		t.Errorf("names: %v %v %v", KindEnemyBullet, KindStage, EntityKind(200))
	}
}

// Sizes are not replicated: every entity the simulation creates has exactly the Size a client
// derives from its Kind (SizeOf, docs/PROTOCOL.md §4.1), and it is never 0×0.
func TestSizeFollowsKind(t *testing.T) {
	if StoreFlags := RegisterComponents(ecs.NewWorld()).Size.Flags(); StoreFlags&ecs.Replicated != 0 {
		t.Fatal("Size is replicated")
	}
	st, err := LoadStage("stage1")
	if err != nil {
		t.Fatal(err)
	}
	s := NewSim(Config{Seed: 3, Players: 4, Stage: st})
	seen := map[Kind]bool{}
	for tick := 0; tick < 60*60*5; tick++ {
		for slot := 0; slot < 4; slot++ {
			s.SetInput(slot, Autopilot(s.World(), s.Components(), &s.Stage().Terrain, s.PlayerEntity(slot), s.Tick()))
		}
		s.Step()
		s.World().ClearEvents()
		for it := ecs.NewQuery1[Kind](s.World()).Iter(); it.Next(); {
			k := *it.Get()
			if k.Kind == KindStage {
				continue
			}
			sz := s.c.Size.Get(it.Entity())
			if sz == nil || *sz != SizeOf(k) || sz.W == 0 || sz.H == 0 {
				t.Fatalf("tick %d: %+v has Size %v, SizeOf gives %v", s.Tick(), k, sz, SizeOf(k))
			}
			seen[k] = true
		}
		if over, _ := s.Over(); over {
			break
		}
	}
	if len(seen) < 12 {
		t.Errorf("only %d kinds seen: %v", len(seen), seen)
	}
}
