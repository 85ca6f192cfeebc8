//go:build display

package client

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/rtype/rtype/game/client/clientflags"
	"github.com/rtype/rtype/game/client/invite"
	"github.com/rtype/rtype/game/client/scene"
)

// browseMain is the harness's "browse" mode: the real client against real servers, its
// screens shot into RTYPE_SHOT_DIR (docs/gallery/README.md). Without RTYPE_INVITE it opens the
// server browser on the lists of RTYPE_LISTS (comma-separated URLs), waits until every server
// answered its query or was given up (servers.png), then, with RTYPE_JOIN=host:port, joins that
// server from the list, creates a lobby (room.png), writes the lobby's invite link to
// RTYPE_LINK_FILE and waits for a second player (room-joined.png). With RTYPE_INVITE=link it
// starts as `rtype-client link` does and shoots the lobby it opened into (invited.png).
func browseMain(log *slog.Logger, dir string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := Config{Mute: true, ConfigDir: dir, Logger: log, viaCanvas: true}
	if l := os.Getenv("RTYPE_LISTS"); l != "" {
		cfg.Lists = strings.Split(l, ",")
	}
	link := os.Getenv("RTYPE_INVITE")
	if link != "" {
		f, code, exit := clientflags.Parse([]string{link}, os.Stdout, os.Stderr)
		if exit {
			return code
		}
		cfg.Server, cfg.Lobby = f.Server, f.Lobby
	}
	a, err := newApp(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		return 1
	}
	defer a.close()
	g := &browseShots{a: a, dir: os.Getenv("RTYPE_SHOT_DIR"), join: os.Getenv("RTYPE_JOIN"), invited: link != "",
		linkFile: os.Getenv("RTYPE_LINK_FILE")}
	ebiten.SetWindowSize(960, 540)
	if err := ebiten.RunGame(g); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		return 1
	}
	return g.code
}

// browseShots drives the real app through the browser's steps and shoots each.
type browseShots struct {
	a         *app
	dir, join string
	linkFile  string
	invited   bool
	step      int
	pending   string
	drawn     int
	code      int
}

func (g *browseShots) Update() error {
	a := g.a
	if err := a.Update(); err != nil {
		return err
	}
	if a.frameN > 60*100 {
		fmt.Fprintf(os.Stderr, "harness: browse step %d not done (scene %v, busy %q, error %q)\n", g.step, a.m.Scene, a.m.Busy, a.m.Error)
		g.code = 1
		return ebiten.Termination
	}
	if g.pending != "" {
		if g.drawn < 2 {
			return nil
		}
		img := image.NewRGBA(image.Rect(0, 0, Width, Height))
		a.canvas.ReadPixels(img.Pix)
		f, err := os.Create(filepath.Join(g.dir, g.pending+".png"))
		if err != nil {
			return err
		}
		png.Encode(f, img)
		f.Close()
		fmt.Println("harness: shot", g.pending)
		g.pending = ""
		g.step++
		return nil
	}
	shoot := func(name string) { g.pending, g.drawn = name, 0 }
	if g.invited {
		if a.m.Scene == scene.Room && len(a.members) >= 2 && a.m.Busy == "" {
			if g.step == 0 {
				shoot("invited")
				return nil
			}
			return ebiten.Termination
		}
		return nil
	}
	m := a.m
	switch g.step {
	case 0: // the title: Play
		if a.frameN > 10 {
			a.handle(scene.Event{Kind: scene.EvPlay})
			g.step++
		}
	case 1: // every server answered or given up
		done := m.Busy == "" && len(m.Servers) > 0
		for _, s := range m.Servers {
			done = done && (s.Pinged || s.NoAnswer)
		}
		if done {
			a.menu = serversHeadRows
			for i, r := range m.Rows() {
				if r.Addr == g.join {
					a.menu = serversHeadRows + i
				}
			}
			shoot("servers")
		}
	case 2:
		if g.join == "" {
			return ebiten.Termination
		}
		a.handle(scene.Event{Kind: scene.EvSubmitAddr, Addr: g.join}) // Enter on its row
		g.step++
	case 3:
		if m.Scene == scene.Browser && m.Busy == "" {
			a.handle(scene.Event{Kind: scene.EvCreate})
			g.step++
		}
	case 4:
		if m.Scene == scene.Room && m.Busy == "" && len(a.members) == 1 {
			shoot("room")
		}
	case 5:
		if g.linkFile != "" {
			os.WriteFile(g.linkFile, []byte(invite.Link(m.Addr, m.Code)+"\n"), 0o644)
		}
		g.step++
	case 6:
		if len(a.members) >= 2 {
			shoot("room-joined")
		}
	default:
		return ebiten.Termination
	}
	return nil
}

func (g *browseShots) Draw(screen *ebiten.Image)  { g.a.Draw(screen); g.drawn++ }
func (g *browseShots) Layout(int, int) (int, int) { return Width, Height }
