package scene

import (
	"fmt"
	"strings"
	"time"
)

// The in-game messages of issue 13 in player words, display-free so that tests read them.

// SlotLabel is a slot's tag in the HUD and the notices: "1P".."4P".
func SlotLabel(slot int) string { return fmt.Sprintf("%dP", slot+1) }

// DeathNotice is the banner of a DEATH (session.EventDeath): slot's ship was destroyed and has
// lives ships left; own is the local player's slot (-1 for a spectator). Your own death reads
// "You were shot down — 2 ships left", another's "2P down (1 left)".
func DeathNotice(slot, lives, own int) string {
	if slot == own {
		switch lives {
		case 0:
			return "You were shot down — no ships left"
		case 1:
			return "You were shot down — last ship!"
		}
		return fmt.Sprintf("You were shot down — %d ships left", lives)
	}
	if lives == 0 {
		return SlotLabel(slot) + " down — no ships left"
	}
	return fmt.Sprintf("%s down (%d left)", SlotLabel(slot), lives)
}

// ExtraShipNotice announces an extra life earned by score.
const ExtraShipNotice = "1UP — extra ship!"

// ContinuePrompt is the arcade continue screen's count: "CONTINUE? 9".
func ContinuePrompt(secs int) string { return fmt.Sprintf("CONTINUE? %d", secs) }

// ContinueHint says how to take the continue.
func ContinueHint(fire string) string {
	return "press " + fire + " to continue · score kept, marked C"
}

// GameOverSpectating is what a player out of lives sees until the game ends.
const GameOverSpectating = "GAME OVER — spectating"

// SpectatingNotice is what a spectator (a lobby joined while its game ran) sees.
const SpectatingNotice = "SPECTATING"

// ResumingNotice is what a player sees while the client takes its place in the lobby back
// (Machine.Resuming): the game itself goes on.
const ResumingNotice = "lobby connection lost: reconnecting (the game goes on)"

// MenuTitle is the in-game menu's title: "PAUSED" when the server really paused the game (a
// lone player's pause, netflow.Frame.Paused), otherwise the game goes on behind the menu.
func MenuTitle(paused bool) string {
	if paused {
		return "PAUSED"
	}
	return "MENU (the game goes on)"
}

// InterruptedNotice is the overlay while no datagram came for a while (netflow.Frame.Silence):
// "connection interrupted… 3 s".
func InterruptedNotice(silence time.Duration) string {
	return fmt.Sprintf("connection interrupted… %d s", int(silence/time.Second))
}

// LostWords puts the reason a game session ended (net/session's EventDisconnected reason) in
// player words; reasons it does not know are kept, capitalised.
func LostWords(reason string) string {
	switch r := strings.ToLower(reason); {
	case strings.Contains(r, "game host stopped answering"): // session.HostGoneReason
		return "The game's host stopped answering: the lobby ended the game."
	case strings.Contains(r, "silent"), strings.Contains(r, "timed out"), strings.Contains(r, "timeout"):
		return "The game server stopped answering (network or server down)."
	case strings.Contains(r, "no answer"):
		return "The game server did not answer: the game could not be joined."
	case strings.Contains(r, "shutting down"):
		return "The server was shut down."
	case strings.Contains(r, "removed"), strings.Contains(r, "kicked"):
		return "You were removed from the game."
	case strings.Contains(r, "session ended"):
		return "The game connection closed."
	case r == "":
		return "The connection was lost."
	}
	return strings.ToUpper(reason[:1]) + reason[1:]
}

// RejoinLabel is the menu item that rejoins a lost game: "Rejoin game K7QF2 (slot 2P)".
func RejoinLabel(code string, slot int) string {
	return fmt.Sprintf("Rejoin game %s (slot %s)", code, SlotLabel(slot))
}

// ClosingWords says why the server closed (its CLOSING push, docs/PROTOCOL.md §2.5.13): it
// restarts (and will be back) or shuts down; when its games end (left 0: now); and the
// operator's last broadcast, quoted, when there was one.
func ClosingWords(restart bool, left time.Duration, text string) string {
	s := "The server is shutting down."
	if restart {
		s = "The server is restarting: connect again in a moment."
	}
	if left >= time.Second {
		s += fmt.Sprintf(" Games end in %s.", left.Truncate(time.Second))
	}
	if text != "" {
		s += " The operator says: \"" + text + "\"" // ASCII quotes: the pixel font has no curly ones
	}
	return s
}
