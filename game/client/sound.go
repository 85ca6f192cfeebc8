package client

import (
	"time"

	"image/color"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/client/synth"
)

// soundWatch is the own ship's state of the last drawn frame, whose changes make sounds.
type soundWatch struct {
	known     bool // the fields below hold a frame's state
	dead      bool
	laser     uint8
	hasForce  bool
	forceMode uint8
	forceLvl  uint8
	notice    time.Time // when the no-sound-device notice leaves the screen
	noticed   bool
}

// noticeShown is how long the no-sound-device notice shows: wall time, so a slow frame rate does
// not stretch it (at 26 FPS 300 frames were 12 s, and more when frames stalled).
const noticeShown = 5 * time.Second

// ownSounds runs once per drawn game frame after the items are collected: the charge hum follows
// the own charge, and changes of the own ship play Death, Respawn, PowerUp (laser level up, Force
// gained or levelled up), ForceLaunch and ForceAttach.
func (a *app) ownSounds() {
	d := &a.draw
	w := &a.soundState
	var self *item
	for i := range d.items {
		if d.items[i].isSelf && d.items[i].kind.Kind == game.KindPlayer {
			self = &d.items[i]
			break
		}
	}
	if self == nil {
		a.snd.SetCharge(0)
		return
	}
	a.snd.SetCharge(self.charge)
	var force *game.Force
	for i := range d.items {
		if it := &d.items[i]; it.kind.Kind == game.KindForce && it.force.Owner == self.e {
			force = &it.force
			break
		}
	}
	dead := self.player.Flags&game.PlayerDead != 0
	if w.known {
		switch {
		case dead && !w.dead:
			a.snd.Play(synth.Death)
		case !dead && w.dead:
			a.snd.Play(synth.Respawn)
		}
		if self.player.Laser > w.laser || (force != nil && (!w.hasForce || force.Level > w.forceLvl)) {
			a.snd.Play(synth.PowerUp)
		}
		if force != nil && w.hasForce && force.Mode != w.forceMode {
			if force.Mode == game.ForceDetached {
				a.snd.Play(synth.ForceLaunch)
			} else {
				a.snd.Play(synth.ForceAttach)
			}
		}
	}
	*w = soundWatch{known: true, dead: dead, laser: self.player.Laser, notice: w.notice, noticed: w.noticed}
	if force != nil {
		w.hasForce, w.forceMode, w.forceLvl = true, force.Mode, force.Level
	}
}

// explosionEffect is the sound of an explosion entity's variant.
func explosionEffect(variant uint8) synth.Effect {
	switch variant {
	case game.ExplosionBig:
		return synth.ExplosionMedium
	case game.ExplosionBoss:
		return synth.ExplosionLarge
	}
	return synth.ExplosionSmall
}

// menuSounds plays MenuMove when the menu selection moved this frame and MenuConfirm when an
// item was chosen (the scene changed, or confirm was pressed), given the state before the
// frame's menu update.
func (a *app) menuSounds(scn scene.ID, menu int) {
	switch {
	case a.m.Scene != scn || a.confirm(false):
		a.snd.Play(synth.MenuConfirm)
	case a.menu != menu:
		a.snd.Play(synth.MenuMove)
	}
}

// musicFor is the music of a scene outside the game: the title piece in the menus and the
// lobby, a stinger on the results screen (its screen's enter: musicScreen).
func (a *app) musicFor(id scene.ID) {
	if s, ok := screenOf(id).(musicScreen); ok {
		s.enter(a)
	}
}

// drawSoundNotice shows the sound player's notice (no sound device) for noticeShown, once per
// run, at the top of whatever screen is up.
func (a *app) drawSoundNotice(dst surface) {
	w := &a.soundState
	if !w.noticed {
		if a.snd.Notice() == "" {
			return
		}
		w.noticed, w.notice = true, time.Now().Add(noticeShown)
	}
	left := time.Until(w.notice)
	if left <= 0 {
		return
	}
	alpha := float32(min(1, left.Seconds()*2)) // fades out over the last half second
	u := a.ui
	msg := a.snd.Notice()
	col := color.RGBA{R: uint8(255 * alpha), G: uint8(220 * alpha), B: uint8(120 * alpha), A: uint8(255 * alpha)}
	u.text(dst, msg, u.small, float64(Width/2), 24, alignCenter, col)
}
