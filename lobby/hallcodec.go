package lobby

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/scores"
)

// Hall-of-fame commands (extensions, docs/PROTOCOL.md §2.4.12 to §2.4.14) and the GAME_ID push
// (§2.5.9).
const (
	CmdGetScores = "GET_SCORES"
	CmdGetGames  = "GET_GAMES"
	CmdGetReplay = "GET_REPLAY"
	PushGameID   = "GAME_ID"
)

// GameEntry is one entry of a GET_SCORES or GET_GAMES answer: the game's rank in the list
// (1 first; page p starts at p*scores.PageSize+1) and the game.
type GameEntry struct {
	Rank int
	Game scores.Record
}

// EndedLayout is the format of a game's end time in a GameEntry: RFC 3339, UTC, to the second.
const EndedLayout = "2006-01-02T15:04:05Z"

// MaxGameEntry is the longest GET_SCORES entry in bytes: "(" rank (6 digits) "," id (36) ","
// stage "," "normal" "," "victory" "," score (11 digits: 4 × 2^32) "," ticks (10) "," ended (20)
// "," replay bytes (7) then per slot "," name (16) ":" score (10) ":" kills (5) ":" deaths (3)
// ":" flags (2), and ");". PageSize of them fit one response line.
const MaxGameEntry = 1 + 6 + 1 + 36 + 1 + stagefile.MaxNameLen + 1 + 6 + 1 + 7 + 1 + 11 + 1 + 10 + 1 + 20 + 1 + 7 +
	rules.MaxPlayers*(1+16+1+10+1+5+1+3+1+2) + 2

// slotFlags are the flags of a slot in a GameEntry: c continued, l left, - none.
func slotFlags(s scores.Slot) string {
	switch {
	case s.Continued && s.Left:
		return "cl"
	case s.Continued:
		return "c"
	case s.Left:
		return "l"
	}
	return "-"
}

// AppendGameEntries appends the GET_SCORES / GET_GAMES body: per game
// "(<rank>,<game-id>,<stage>,<difficulty>,<result>,<score>,<ticks>,<ended>,<replay-bytes>,<slot>...);"
// with one "<name>:<score>:<kills>:<deaths>:<flags>" per slot (an empty page is an empty body).
func AppendGameEntries(buf []byte, es []GameEntry) []byte {
	for _, e := range es {
		g := &e.Game
		buf = append(buf, '(')
		buf = strconv.AppendInt(buf, int64(e.Rank), 10)
		buf = append(buf, ',')
		buf = append(buf, g.ID.String()...)
		buf = append(buf, ',')
		buf = append(buf, g.Stage...)
		buf = append(buf, ',')
		buf = append(buf, g.Difficulty.String()...)
		buf = append(buf, ',')
		buf = append(buf, g.Result.String()...)
		buf = append(buf, ',')
		buf = strconv.AppendUint(buf, g.Score(), 10)
		buf = append(buf, ',')
		buf = strconv.AppendUint(buf, uint64(g.Ticks), 10)
		buf = append(buf, ',')
		buf = g.Ended.UTC().AppendFormat(buf, EndedLayout)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, g.ReplayBytes, 10)
		for _, s := range g.Slots {
			buf = append(buf, ',')
			buf = append(buf, s.Name...)
			buf = append(buf, ':')
			buf = strconv.AppendUint(buf, uint64(s.Score), 10)
			buf = append(buf, ':')
			buf = strconv.AppendUint(buf, uint64(s.Kills), 10)
			buf = append(buf, ':')
			buf = strconv.AppendUint(buf, uint64(s.Deaths), 10)
			buf = append(buf, ':')
			buf = append(buf, slotFlags(s)...)
		}
		buf = append(buf, ')', ';')
	}
	return buf
}

// decimal reads an unsigned decimal without sign or leading zero of at most bits bits.
func decimal(s string, bits int) (uint64, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') || s[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, bits)
	return n, err == nil
}

// ParseGameEntries parses a GET_SCORES or GET_GAMES body written by AppendGameEntries. It checks
// every field (a uuid, a stage name, a level, a result, decimals in range, 1..4 valid slots
// whose scores add up to the game's) and refuses anything else.
func ParseGameEntries(body string) ([]GameEntry, error) {
	var out []GameEntry
	for body != "" {
		end := strings.IndexByte(body, ';')
		if end < 0 {
			return nil, syntaxErr("game entry without ';'")
		}
		entry := body[:end]
		body = body[end+1:]
		if len(entry) < 2 || entry[0] != '(' || entry[len(entry)-1] != ')' {
			return nil, syntaxErr("game entry %q is not (...)", cut(entry))
		}
		f := strings.Split(entry[1:len(entry)-1], ",")
		if len(f) < 10 || len(f) > 9+rules.MaxPlayers {
			return nil, syntaxErr("game entry %q: want 9 fields and 1..%d slots", cut(entry), rules.MaxPlayers)
		}
		bad := func(what string) error { return syntaxErr("game entry %q: bad %s", cut(entry), what) }
		var e GameEntry
		rank, ok := decimal(f[0], 31)
		if !ok || rank == 0 {
			return nil, bad("rank")
		}
		e.Rank = int(rank)
		id, err := uuid.Parse(f[1])
		if err != nil || id.String() != f[1] {
			return nil, bad("game id")
		}
		g := &e.Game
		g.ID = id
		if !stagefile.ValidName(f[2]) {
			return nil, bad("stage")
		}
		g.Stage = f[2]
		if g.Difficulty, err = rules.ParseDifficulty(f[3]); err != nil {
			return nil, bad("difficulty")
		}
		switch f[4] {
		case "defeat":
			g.Result = rules.ResultDefeat
		case "victory":
			g.Result = rules.ResultVictory
		case "aborted":
			g.Result = rules.ResultAborted
		default:
			return nil, bad("result")
		}
		score, ok := decimal(f[5], 64)
		if !ok {
			return nil, bad("score")
		}
		ticks, ok := decimal(f[6], 32)
		if !ok {
			return nil, bad("ticks")
		}
		g.Ticks = uint32(ticks)
		if g.Ended, err = time.Parse(EndedLayout, f[7]); err != nil {
			return nil, bad("end time")
		}
		size, ok := decimal(f[8], 63)
		if !ok || size > scores.MaxReplayBytes {
			return nil, bad("replay size")
		}
		g.ReplayBytes = int64(size)
		for _, sf := range f[9:] {
			p := strings.Split(sf, ":")
			if len(p) != 5 || !ValidName(p[0]) {
				return nil, bad("slot")
			}
			sc, ok1 := decimal(p[1], 32)
			k, ok2 := decimal(p[2], 16)
			d, ok3 := decimal(p[3], 8)
			if !ok1 || !ok2 || !ok3 {
				return nil, bad("slot")
			}
			s := scores.Slot{Name: p[0], Score: uint32(sc), Kills: uint16(k), Deaths: uint8(d)}
			switch p[4] {
			case "-":
			case "c":
				s.Continued = true
			case "l":
				s.Left = true
			case "cl":
				s.Continued, s.Left = true, true
			default:
				return nil, bad("slot flags")
			}
			g.Slots = append(g.Slots, s)
		}
		if g.Score() != score {
			return nil, bad("score (not the sum of the slots')")
		}
		out = append(out, e)
	}
	return out, nil
}

// cut shortens s for an error reason.
func cut(s string) string {
	if len(s) > 48 {
		return s[:48] + "..."
	}
	return s
}

// AppendReplayPart appends the GET_REPLAY response body "<parts>,<base64>" (as GET_STAGE's).
func AppendReplayPart(buf []byte, parts int, data []byte) []byte {
	buf = strconv.AppendInt(buf, int64(parts), 10)
	buf = append(buf, ',')
	return base64.StdEncoding.AppendEncode(buf, data)
}

// ParseReplayPart parses a GET_REPLAY response body: parts is 1..scores.MaxReplayParts in
// decimal, the data standard base64 (with padding) of 1..scores.ReplayPartBytes bytes.
func ParseReplayPart(body string) (parts int, data []byte, err error) {
	p, b64, ok := strings.Cut(body, ",")
	if !ok {
		return 0, nil, syntaxErr("replay part is not <parts>,<base64>")
	}
	n, ok := decimal(p, 31)
	if !ok || n < 1 || n > scores.MaxReplayParts {
		return 0, nil, syntaxErr("replay part count %q is not 1..%d", cut(p), scores.MaxReplayParts)
	}
	if len(b64) == 0 || len(b64) > base64.StdEncoding.EncodedLen(scores.ReplayPartBytes) || strings.ContainsAny(b64, "\r\n") {
		return 0, nil, syntaxErr("replay part data must be 1..%d bytes of base64", base64.StdEncoding.EncodedLen(scores.ReplayPartBytes))
	}
	data, err = base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil {
		return 0, nil, syntaxErr("replay part data is not standard base64: %v", err)
	}
	return int(n), data, nil
}
