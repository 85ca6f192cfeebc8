package fleet

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// Message types (docs/CONTROL.md §4): the lobby sends hello, stage, start, rejoin, spectate,
// drop, ping and bye; the host sends reply, running, replay, ended, gone and load.
const (
	TypeHello    = "hello"
	TypeBye      = "bye"
	TypeRunning  = "running"
	TypeAttached = "attached"
	TypeStage    = "stage"
	TypeStart    = "start"
	TypeRejoin   = "rejoin"
	TypeSpectate = "spectate"
	TypeDrop     = "drop"
	TypePing     = "ping"
	TypeReply    = "reply"
	TypeReplay   = "replay"
	TypeEnded    = "ended"
	TypeGone     = "gone"
	TypeLoad     = "load"
)

// Msg is one control message, the JSON object of one frame. Which fields a type uses is in
// docs/CONTROL.md §4; the others are left out.
type Msg struct {
	Type string `json:"type"`
	// ID is the lobby's request id (start, rejoin, spectate), echoed by the host's reply.
	ID uint64 `json:"id,omitempty"`
	// Game names a game on this connection: the id of the start request that made it.
	Game uint64 `json:"game,omitempty"`
	// Spec is what start hands over.
	Spec *Spec `json:"spec,omitempty"`
	// Member is the rejoining player or new spectator; Members the spectators a game dropped.
	Member  *Member  `json:"member,omitempty"`
	Members []Member `json:"members,omitempty"`
	// User and Left: the player drop removes (handoff.Game.Drop).
	User string `json:"user,omitempty"`
	Left bool   `json:"left,omitempty"`
	// Port and Host: where the started game's players send UDP (reply to start); Host "" means
	// the host of the control address the lobby dialled.
	Port int    `json:"port,omitempty"`
	Host string `json:"host,omitempty"`
	// Lobby is the lobby's name for itself (hello): a host keeps the games of a lobby that
	// named itself when its connection fails, and gives them back to the next connection
	// with the same name (a restarted lobby, docs/CONTROL.md §4.3).
	Lobby string `json:"lobby,omitempty"`
	// Error is a refused request's reason (reply).
	Error string `json:"error,omitempty"`
	// Result is how a game ended (ended): 0 defeat, 1 victory, 2 aborted.
	Result uint8 `json:"result,omitempty"`
	// Record is the ended game's figures (ended; nil from a host that sends none).
	Record *Record `json:"record,omitempty"`
	// Part, Parts and Data are one part of an ended game's replay file (replay) or of a stage
	// file (stage): part Part (0-based) of Parts, at most ReplayPartBytes bytes (base64 in the
	// JSON); a replay's come before the game's ended, a stage's before the start that plays it.
	Part  int    `json:"part,omitempty"`
	Parts int    `json:"parts,omitempty"`
	Data  []byte `json:"data,omitempty"`
	// Hash is the StageHash of the stage file whose part a stage message carries.
	Hash string `json:"hash,omitempty"`
	// Stages are the hashes of the stage files the host has (its first load: the lobby sends
	// it the others its games play, docs/CONTROL.md §4.2).
	Stages []string `json:"stages,omitempty"`
	// Load: the host's games, capacity and whether it drains (every reply, ended and load).
	Load *Load `json:"load,omitempty"`
}

// Load is a host's load as it reports it.
type Load struct {
	Games    int  `json:"games"`
	Capacity int  `json:"capacity"`
	Draining bool `json:"draining,omitempty"`
}

// Record is an ended game's figures as the host's simulation has them (net/server.GameRecord):
// its length in ticks and each slot's figures, in the order of the start's members. The lobby
// adds what it knows itself (the game id, stage, level and names) and keeps it in its hall
// of fame.
type Record struct {
	Ticks uint32       `json:"ticks"`
	Slots []SlotRecord `json:"slots"`
	// Ended is when the game ended on the host (Unix milliseconds; 0 from an older host): a
	// game that ended while its lobby was away is kept with its own end, not its hand-back's.
	Ended int64 `json:"ended,omitempty"`
}

// SlotRecord is one slot's figures at the end (lobby/scores.Slot without the name).
type SlotRecord struct {
	Score     uint32 `json:"score"`
	Kills     uint16 `json:"kills"`
	Deaths    uint8  `json:"deaths"`
	Continued bool   `json:"continued,omitempty"`
	Left      bool   `json:"left,omitempty"`
}

// Check refuses a record that does not fit a game of players members (the lobby never takes
// a host's figures blindly; their ranges are the JSON types').
func (r *Record) Check(players int) error {
	if len(r.Slots) != players {
		return fmt.Errorf("record with %d slots for a game of %d players", len(r.Slots), players)
	}
	return nil
}

// Spec is handoff.GameSpec on the wire: the stage by name and hash (the host plays the file of
// that hash: its own, or the one the lobby sent, §4.2), an arcade run's stages, the practice
// section. A start without hash (an older lobby) plays the host's stage of that name.
type Spec struct {
	// GameID is handoff.GameSpec.ID (the hall of fame's id of the game): a restarted lobby
	// learns it back with the game (running, ended; docs/CONTROL.md §4.3). "": none.
	GameID     string     `json:"game_id,omitempty"`
	Code       string     `json:"code"`
	Stage      string     `json:"stage"`
	Hash       string     `json:"hash,omitempty"`
	Difficulty string     `json:"difficulty"`
	Run        []StageRef `json:"run,omitempty"`
	Section    int        `json:"section,omitempty"`
	// InfiniteLives: the practice trainer (handoff.GameSpec.InfiniteLives; left out: false).
	InfiniteLives bool     `json:"infinite_lives,omitempty"`
	Members       []Member `json:"members"`
}

// StageRef names a stage file on the wire: its name in the lobby's catalogue and its StageHash.
type StageRef struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// Member is handoff.Member on the wire: the key as 32 lowercase hex digits.
type Member struct {
	UUID  string `json:"uuid"`
	Name  string `json:"name"`
	Slot  int    `json:"slot"`
	Token uint32 `json:"token"`
	Key   string `json:"key"`
}

func memberOf(m handoff.Member) Member {
	return Member{UUID: m.UUID.String(), Name: m.Name, Slot: m.Slot, Token: m.Token, Key: hex.EncodeToString(m.Key[:])}
}

// lobbyMember checks and converts a wire member (a host never trusts the peer's fields: the
// game would refuse them later, less clearly).
func (m Member) lobbyMember() (handoff.Member, error) {
	id, err := uuid.Parse(m.UUID)
	if err != nil {
		return handoff.Member{}, fmt.Errorf("member uuid %q: %w", m.UUID, err)
	}
	if !lobby.ValidSessionKey(m.Key) {
		return handoff.Member{}, errors.New("member key: want 32 lowercase hex digits")
	}
	if m.Token == 0 {
		return handoff.Member{}, errors.New("member token 0")
	}
	if !lobby.ValidName(m.Name) {
		return handoff.Member{}, fmt.Errorf("member name %q", m.Name)
	}
	if m.Slot < -1 || m.Slot >= rules.MaxPlayers {
		return handoff.Member{}, fmt.Errorf("member slot %d", m.Slot)
	}
	out := handoff.Member{UUID: id, Name: m.Name, Slot: m.Slot, Token: m.Token}
	_, _ = hex.Decode(out.Key[:], []byte(m.Key))
	return out, nil
}

func specOf(s handoff.GameSpec) *Spec {
	out := &Spec{Code: s.Code, Stage: s.Stage, Difficulty: s.Difficulty.String(), Section: s.Section, InfiniteLives: s.InfiniteLives}
	if s.ID != (uuid.UUID{}) {
		out.GameID = s.ID.String()
	}
	if f := s.File(s.Stage); f != nil {
		out.Hash = f.Hash
	}
	for _, name := range s.Run {
		ref := StageRef{Name: name}
		if f := s.File(name); f != nil {
			ref.Hash = f.Hash
		}
		out.Run = append(out.Run, ref)
	}
	for _, m := range s.Members {
		out.Members = append(out.Members, memberOf(m))
	}
	return out
}

func (s *Spec) gameSpec() (handoff.GameSpec, error) {
	if s == nil {
		return handoff.GameSpec{}, errors.New("start without spec")
	}
	d, err := rules.ParseDifficulty(s.Difficulty)
	if err != nil {
		return handoff.GameSpec{}, err
	}
	if len(s.Members) == 0 || len(s.Members) > rules.MaxPlayers {
		return handoff.GameSpec{}, fmt.Errorf("start with %d members (1..%d)", len(s.Members), rules.MaxPlayers)
	}
	if !lobby.ValidCode(s.Code) {
		return handoff.GameSpec{}, fmt.Errorf("lobby code %q", s.Code)
	}
	if !stagefile.ValidName(s.Stage) {
		return handoff.GameSpec{}, fmt.Errorf("stage name %q", s.Stage)
	}
	if s.Hash != "" && !lobby.ValidStageHash(s.Hash) {
		return handoff.GameSpec{}, fmt.Errorf("stage hash %q", s.Hash)
	}
	if len(s.Run) > stagefile.MaxRun {
		return handoff.GameSpec{}, fmt.Errorf("run of %d stages (at most %d)", len(s.Run), stagefile.MaxRun)
	}
	if s.Section < 0 || s.Section > stagefile.MaxSections {
		return handoff.GameSpec{}, fmt.Errorf("practice section %d (0..%d)", s.Section, stagefile.MaxSections)
	}
	out := handoff.GameSpec{Code: s.Code, Stage: s.Stage, Difficulty: d, Section: s.Section, InfiniteLives: s.InfiniteLives}
	if s.GameID != "" {
		if out.ID, err = uuid.Parse(s.GameID); err != nil {
			return handoff.GameSpec{}, fmt.Errorf("game id %q: %w", s.GameID, err)
		}
	}
	for _, r := range s.Run {
		if !stagefile.ValidName(r.Name) || (r.Hash != "" && !lobby.ValidStageHash(r.Hash)) {
			return handoff.GameSpec{}, fmt.Errorf("run stage %q (hash %q)", r.Name, r.Hash)
		}
		out.Run = append(out.Run, r.Name)
	}
	for _, m := range s.Members {
		lm, err := m.lobbyMember()
		if err != nil {
			return handoff.GameSpec{}, err
		}
		out.Members = append(out.Members, lm)
	}
	return out, nil
}

// encode marshals m (its fields cannot fail to marshal).
func encode(m *Msg) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		panic("fleet: " + err.Error())
	}
	return b
}

// decode parses one message; unknown fields are ignored (a newer peer), an unknown type is the
// caller's to ignore.
func decode(b []byte) (*Msg, error) {
	var m Msg
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("fleet: bad control message: %w", err)
	}
	if m.Type == "" {
		return nil, errors.New("fleet: control message without type")
	}
	return &m, nil
}
