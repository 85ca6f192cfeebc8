package simgame

import (
	"testing"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/session"
)

// crawlStage: a corridor whose floor and ceiling slope every 100 px, so a crawling laser's
// height changes all the time.
const crawlStage = `{
  "name": "crawl", "scrollSpeed": 60,
  "sections": [{"at": 0, "song": 1}],
  "terrain": {"theme": "base", "start": 0, "step": 100,
    "ceiling": [100,160,120,200,140,100,180,120,160,100,140,200,120,160,100,180,120,160,100,140,200,120,160,100,180,120,160,100,140,200,120,160,100,180,120,160,100,140,200,120],
    "floor":   [120,180,140,220,160,120,200,140,180,120,160,220,140,180,120,200,140,180,120,160,220,140,180,120,200,140,180,120,160,220,140,180,120,200,140,180,120,160,220,140]},
  "waves": [],
  "boss": {"at": 900000, "kind": "small", "hp": 10, "song": 3,
    "phases": [{"below": 100, "pattern": "fan", "interval": 60, "bullets": 5, "speed": 300, "open": 60, "closed": 60}]}
}`

// Yellow lasers crawling along the terrain are placed by the clients from the stage's terrain and
// the scroll (docs/PROTOCOL.md §5.8): the server sends a crawling laser's Motion once, when it
// starts crawling, and the client's laser follows the slopes where the server's does.
func TestClientsPlaceCrawlingLasers(t *testing.T) {
	st, err := game.ParseStage("crawl.json", []byte(crawlStage))
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Stage: st, Players: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sim := g.Server.Sim()
	c := sim.Components()
	g.RunFor(200 * time.Millisecond) // HERE, WELCOME
	// A yellow crystal on the ship gives the Force and the yellow laser; the Force flies in and
	// attaches in front.
	ship := sim.PlayerEntity(0)
	sp := c.Position.Get(ship)
	e := sim.World().Create()
	c.Position.Set(e, game.Position{X: sp.X + 60, Y: sp.Y})
	c.Velocity.Set(e, game.Velocity{})
	c.Kind.Set(e, game.Kind{Kind: game.KindPowerUp, Variant: game.PowerYellow})
	c.Size.Set(e, game.SizeOf(game.Kind{Kind: game.KindPowerUp}))
	g.RunFor(3 * time.Second)
	if pl := c.Player.Get(ship); pl.Laser != game.LaserYellow {
		t.Fatalf("laser %d after the yellow crystal", pl.Laser)
	}
	cl := g.Clients[0]
	compared, matched := 0, 0
	type at struct {
		e ecs.Entity
		t ecs.Tick
	}
	server := map[at]game.Position{} // the server's crawling lasers, by tick
	for i := 0; i < 240; i++ {
		b := game.Buttons(0)
		if i%16 < 2 {
			b = game.BtnFire
		}
		cl.SetInput(b)
		g.RunFor(game.TickPeriod)
		sim.World().Each(func(e ecs.Entity) {
			if k := c.Kind.Get(e); k != nil && k.Kind == game.KindPlayerBullet && game.CrawlOf(k.Variant) != game.SurfNone {
				server[at{e, sim.Tick()}] = *c.Position.Get(e)
			}
		})
		if i < 40 {
			continue
		}
		// Compare the client's crawling lasers with the server's at the mirror's tick: the server
		// world is ahead, so compare the height each gives for the client's own x.
		cl.View(g.Now, func(v *session.View) {
			v.World.Each(func(e ecs.Entity) {
				k, p := v.C.Kind.Get(e), v.C.Position.Get(e)
				if k == nil || p == nil || k.Kind != game.KindPlayerBullet || game.CrawlOf(k.Variant) == game.SurfNone {
					return
				}
				sk := c.Kind.Get(e)
				if sk == nil {
					return // gone on the server already
				}
				if sk.Variant != k.Variant {
					t.Errorf("laser %#x: variant %d on the client, %d on the server", uint64(e), k.Variant, sk.Variant)
				}
				// The client's laser sits on its surface at its own x and the mirror's scroll.
				var scroll float32
				v.World.Each(func(se ecs.Entity) {
					if sk := v.C.Kind.Get(se); sk != nil && sk.Kind == game.KindStage {
						scroll = v.C.Position.Get(se).X
					}
				})
				want, _ := game.CrawlY(&st.Terrain, k.Variant, p.X+scroll)
				if d := p.Y - want; d > 0.01 || d < -0.01 {
					t.Errorf("laser %#x at (%v, %v) on the client, its surface is at %v", uint64(e), p.X, p.Y, want)
				}
				compared++
				// Where the server had it at the mirror's tick (within the dead-reckoning bound).
				if sp, ok := server[at{e, v.Tick}]; ok {
					matched++
					if dx, dy := sp.X-p.X, sp.Y-p.Y; dx*dx+dy*dy > 1 {
						t.Errorf("tick %d laser %#x: client (%v, %v), server (%v, %v)", v.Tick, uint64(e), p.X, p.Y, sp.X, sp.Y)
					}
				}
			})
		})
	}
	if compared < 50 || matched < 50 {
		t.Fatalf("compared %d crawling lasers (%d with the server's at the same tick)", compared, matched)
	}
	// The server and the client agree on where a crawling laser is: the server's own positions
	// follow the same rule (CrawlY) at the server's scroll.
	sim.World().Each(func(e ecs.Entity) {
		k, p := c.Kind.Get(e), c.Position.Get(e)
		if k == nil || k.Kind != game.KindPlayerBullet || game.CrawlOf(k.Variant) == game.SurfNone {
			return
		}
		want, _ := game.CrawlY(&st.Terrain, k.Variant, p.X+sim.Scroll())
		if p.Y != want {
			t.Errorf("server laser at y %v, CrawlY %v", p.Y, want)
		}
	})
}
