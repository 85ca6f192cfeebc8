package client

import (
	"fmt"
	"strings"
	"sync"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/art"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
)

// roomScreen (scene.Room) is a lobby joined: its members (polled every 20 frames), the owner's
// choices of stage, difficulty and practice section, Start or Leave, and the lobby's chat.
type roomScreen struct{ titleMusic }

func init() { register(scene.Room, roomScreen{}) }

func (roomScreen) chat() {}

func (roomScreen) update(a *app, _ frame) {
	a.pollRoom()
	items := a.roomItems()
	if step := a.leftRight(); step != 0 {
		a.roomStep(items[min(a.menu, len(items)-1)], step)
	}
	a.nav(len(items), false)
	if a.back(false) {
		a.handle(scene.Event{Kind: scene.EvBack})
	} else if a.confirm(false) {
		switch sel := items[min(a.menu, len(items)-1)]; {
		case sel == "Start":
			a.handle(scene.Event{Kind: scene.EvStart})
		case strings.HasPrefix(sel, difficultyItem):
			a.handle(scene.Event{Kind: scene.EvSetDifficulty, Level: nextLevel(a.roomLevel, 1).String()})
			a.membersAt = a.frameN - 20
		case strings.HasPrefix(sel, sectionItem):
			a.handle(scene.Event{Kind: scene.EvSetSection, Section: (a.roomSection + 1) % (practiceSections(a.roomStage) + 1)})
			a.membersAt = a.frameN - 20
		case strings.HasPrefix(sel, livesItem):
			a.toggleLives()
		default:
			a.handle(scene.Event{Kind: scene.EvBack})
		}
	}
}

// pollRoom takes the lobby's members, stage, level and section from the lobby connection
// every 20 frames (and at once when they are unknown).
func (a *app) pollRoom() {
	if a.frameN-a.membersAt >= 20 || a.members == nil {
		_, a.members = a.net.Members()
		a.roomStage = a.net.Stage()
		a.roomLevel = a.net.Difficulty()
		a.roomSection = a.net.Section()
		a.roomInfinite = a.net.InfiniteLives()
		a.membersAt = a.frameN
	}
}

// roomStep is Left/Right (step -1 or 1) on the room menu's item sel: on the practice item the
// owner steps the section a solo game starts at (SET_SECTION), on the difficulty item the
// level (SET_DIFFICULTY), elsewhere the lobby's stage through the offered ones (SET_STAGE; the
// server refuses others, and the refusal is shown). The push is shown as soon as it arrives.
func (a *app) roomStep(sel string, step int) {
	m := a.m
	switch {
	case strings.HasPrefix(sel, livesItem):
		a.toggleLives()
		return
	case strings.HasPrefix(sel, sectionItem):
		n := practiceSections(a.roomStage) + 1 // the start .. the boss
		a.handle(scene.Event{Kind: scene.EvSetSection, Section: (a.roomSection + step + n) % n})
	case strings.HasPrefix(sel, difficultyItem):
		a.handle(scene.Event{Kind: scene.EvSetDifficulty, Level: nextLevel(a.roomLevel, step).String()})
	case len(m.Stages) > 1:
		i := 0
		for j, st := range m.Stages {
			if st == a.roomStage {
				i = j
			}
		}
		a.handle(scene.Event{Kind: scene.EvSetStage, Stage: m.Stages[(i+step+len(m.Stages))%len(m.Stages)]})
	default:
		return
	}
	a.membersAt = a.frameN - 20
}

func (roomScreen) draw(a *app, dst surface) {
	u := a.ui
	m := a.m
	cx := float64(Width / 2)
	u.text(dst, "LOBBY "+m.Code, u.big, cx, 120, alignCenter, white)
	stage := game.StageTitle(a.roomStage)
	if stage == "" {
		stage = "?"
	}
	u.text(dst, "give this code to your friends on this server, or the invite link "+inviteLink(m.Addr, m.Code), u.small, cx, 200, alignCenter, u.dimCol)
	if len(m.Stages) > 1 {
		stage = "<  " + stage + "  >"
	}
	lives := ""
	if a.roomInfinite {
		lives = "   ·   " + infiniteLives
	}
	u.text(dst, "Stage  "+stage+"   ·   "+a.roomLevel.Rules().Title+lives, u.normal, cx, 246, alignCenter, u.itemCol)
	hint := "T chat · Enter select · Esc leave"
	if len(m.Stages) > 1 {
		hint = "Left/Right: the stage, or on Difficulty, Start at and Lives their choice (owner) · " + hint
	}
	u.help(dst, hint)
	for i := 0; i < rules.MaxPlayers; i++ {
		y := 320 + float64(i)*70
		name, col := "- free -", u.dimCol
		if i < len(a.members) {
			name, col = a.members[i], art.SlotColors[i]
			u.on(dst).frame(u.sp.anim(game.KindPlayer, uint8(i))[2], float32(cx-620), float32(y+20), 2, 2, 1, 0)
			if i == 0 {
				name += "  (owner)"
			}
			if a.members[i] == a.net.Name() {
				name = "> " + name + "  (you)" // your own row
			}
		}
		u.text(dst, fmt.Sprintf("%dP  %s", i+1, name), u.normal, cx-560, y, alignStart, col)
	}
	u.menu(dst, a.roomItems(), a.menu, cx-260, 660)
	if !a.isOwner() && len(a.members) > 0 {
		u.text(dst, "waiting for "+a.members[0]+" to start", u.small, cx-260, 610, alignCenter, u.dimCol)
	}
	a.drawStatus(dst, 820)
	a.drawChatPanel(dst, cx+300, 300, 620, 600)
}

// isOwner reports whether this player owns the lobby (the first member): only the owner starts
// the game (docs/PROTOCOL.md §2.4.4).
func (a *app) isOwner() bool { return len(a.members) > 0 && a.members[0] == a.net.Name() }

// roomItems is the lobby room's menu: Start and the difficulty choice only for the owner, and
// for the owner of a solo lobby of a stage with sections the practice start (SET_SECTION).
func (a *app) roomItems() []string {
	if !a.isOwner() {
		return []string{"Leave"}
	}
	items := []string{"Start", difficultyItem + "  < " + a.roomLevel.Rules().Title + " >"}
	if len(a.members) == 1 && practiceSections(a.roomStage) > 0 {
		items = append(items, sectionItem+"  < "+sectionLabel(a.roomSection, practiceSections(a.roomStage))+" >")
	}
	if len(a.members) == 1 && a.roomStage != stagefile.Arcade {
		lives := "the level's"
		if a.roomInfinite {
			lives = infiniteLives + " (practice)"
		}
		items = append(items, livesItem+"  < "+lives+" >")
	}
	return append(items, "Leave")
}

// livesItem starts the room menu's practice-trainer item (Enter or Left/Right on it switch
// between the level's lives and infinite lives: SET_LIVES, docs/PROTOCOL.md §2.4.17).
const livesItem = "Lives"

// infiniteLives is how the room and the results name the practice trainer.
const infiniteLives = "infinite lives"

// toggleLives asks the lobby for the other choice of lives (the LIVES push shows it; a refusal
// is said in the room).
func (a *app) toggleLives() {
	a.handle(scene.Event{Kind: scene.EvSetLives, Infinite: !a.roomInfinite})
	a.membersAt = a.frameN - 20
}

// sectionItem starts the room menu's practice item (Left/Right on it change where the game
// starts: the stage's start, a later section or its boss).
const sectionItem = "Start at"

// practiceSections is the number of sections of the embedded stage name (its boss is section
// that number: Stage.PracticeBoss), 0 for a stage the client does not hold or an arcade run.
func practiceSections(name string) int {
	if name == "" || name == stagefile.Arcade {
		return 0
	}
	if n, ok := sectionsOf.Load(name); ok {
		return n.(int)
	}
	n := 0
	if f, err := stagefile.Embedded(name, game.ParseScript); err == nil {
		n = f.Script.PracticeBoss()
	}
	sectionsOf.Store(name, n)
	return n
}

// sectionsOf caches practiceSections by stage name: the lobby room asks every frame, and an
// embedded stage file does not change (parsing it takes about 0.1 ms).
var sectionsOf sync.Map

// sectionLabel names practice section s of a stage of n sections for the room menu.
func sectionLabel(s, n int) string {
	switch {
	case s <= 0:
		return "the start"
	case s >= n:
		return "the boss (practice)"
	}
	return fmt.Sprintf("section %d (practice)", s+1)
}

// difficultyItem starts the room menu's difficulty item (Left/Right on it change the level).
const difficultyItem = "Difficulty"

// nextLevel is the level after (step 1) or before (step -1) d in rules.Difficulties.
func nextLevel(d rules.Difficulty, step int) rules.Difficulty {
	ls := rules.Difficulties[:]
	i := 0
	for j, l := range ls {
		if l == d {
			i = j
		}
	}
	return ls[(i+step+len(ls))%len(ls)]
}
