package client

import (
	"fmt"

	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/client/synth"
)

// screen is one client screen, a type in a file of its own (titlescreen.go …) that registers
// itself under its scene's ID (register, from the file's init): a frame of its
// input handling and update, and its picture. Its flow, what its events do and the commands they
// give, is its screen in package scene (display-free, tested there).
type screen interface {
	// update runs one frame of the screen: its keys become scene events (app.handle). A menu's
	// update is not called on a frame whose keys went elsewhere (frame); a gameScreen's is
	// called every frame, with frame.
	update(a *app, f frame)
	// draw draws the screen: a menu over the menus' backdrop, a gameScreen over the world and
	// the game's HUD.
	draw(a *app, dst surface)
}

// frame is what Update knows of a frame before the screen's update.
type frame struct {
	toggled  bool // F11 or Alt+Enter toggled fullscreen: the key must not also act on the screen
	chatKeys bool // the chat field has the keyboard
}

// gameScreen is a screen that shows a game (a session, a replay): once its link is up the world
// and the HUD are drawn under it instead of the menus' backdrop.
type gameScreen interface {
	screen
	game()
}

// musicScreen is a screen with music of its own, started by enter when its scene is entered
// (titleMusic: the menus' piece); other screens keep what plays.
type musicScreen interface {
	screen
	enter(a *app)
}

// titleMusic is the music of the menus and the lobby: the title piece (a screen that embeds it
// starts it when entered).
type titleMusic struct{}

func (titleMusic) enter(a *app) { a.snd.Music(int(synth.SongTitle)) }

// chatScreen is a screen where the lobby's chat is open (a lobby connection and a lobby).
type chatScreen interface {
	screen
	chat()
}

// screens is each scene's screen, filled by register from the screen's own file (an init
// there): no list to edit when a screen is added.
var screens [scene.NumScenes]screen

// register makes s the screen of scene id. It panics on an ID past the scenes or registered
// twice: a mistake of the program, found at start-up (and by TestEveryScreenListed).
func register(id scene.ID, s screen) {
	if id >= scene.NumScenes || s == nil {
		panic(fmt.Sprintf("client: register(%v, %T)", id, s))
	}
	if screens[id] != nil {
		panic(fmt.Sprintf("client: scene %v registered twice (%T, %T)", id, screens[id], s))
	}
	screens[id] = s
}

// screenOf is the screen of scene id (noScreen for an id without one).
func screenOf(id scene.ID) screen {
	if id < scene.NumScenes && screens[id] != nil {
		return screens[id]
	}
	return noScreen{}
}

// noScreen draws and does nothing.
type noScreen struct{}

func (noScreen) update(*app, frame) {}
func (noScreen) draw(*app, surface) {}

// isGame reports whether s shows a game (gameScreen).
func isGame(s screen) bool {
	_, ok := s.(gameScreen)
	return ok
}
