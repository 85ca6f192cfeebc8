package wire

import "strconv"

// CmdID is the one-byte command identifier (seed 004 §3.4; 12..17 are
// extensions, docs/PROTOCOL.md §8).
type CmdID uint8

// Command identifiers.
const (
	CmdEntity    CmdID = 1  // s→c ENTITY (seed 004)
	CmdDelEnt    CmdID = 2  // s→c DEL_ENT (seed 004)
	CmdDelComp   CmdID = 3  // s→c DEL_COMP (seed 004)
	CmdMusic     CmdID = 4  // s→c MUSIC (seed 004)
	CmdGameEnd   CmdID = 5  // s→c GAME_END (seed 004, argument added)
	CmdDeath     CmdID = 6  // s→c DEATH (seed 004, arguments added)
	CmdHere      CmdID = 7  // c→s HERE (seed 004)
	CmdGetEnt    CmdID = 8  // c→s GET_ENT (seed 004)
	CmdActShoot  CmdID = 9  // c→s ACT_SHOOT (seed 004)
	CmdActMove   CmdID = 10 // c→s ACT_MOVE (seed 004)
	CmdPing      CmdID = 11 // both PING (seed 004, nonce added)
	CmdRel       CmdID = 12 // both REL (extension)
	CmdInput     CmdID = 13 // c→s INPUT (extension)
	CmdWelcome   CmdID = 14 // s→c WELCOME (extension)
	CmdBye       CmdID = 15 // both BYE (extension)
	CmdChallenge CmdID = 16 // s→c CHALLENGE (extension): prove the session key from a new address
	CmdResponse  CmdID = 17 // c→s RESPONSE (extension): the proof
	CmdPause     CmdID = 18 // both PAUSE (extension): a request (c→s), the game's pause state (s→c)
	CmdResults   CmdID = 19 // s→c RESULTS (extension): every player's figures, before GAME_END
	CmdState     CmdID = 20 // s→c STATE (extension): several entities' state in compact records
	CmdDelEnts   CmdID = 21 // s→c DEL_ENTS (extension): DEL_ENT of several entities, compact ids

	// MaxCmd is the largest known command id.
	MaxCmd = CmdDelEnts
)

// commands is what the wire knows of each command, by id, declared once: its protocol name and
// whether a REL may precede it (docs/PROTOCOL.md §3.6.2: the commands a server sends reliably).
// The array has exactly MaxCmd+1 entries (a missing or extra id does not compile).
var commands = [MaxCmd + 1]struct {
	name     string
	reliable bool
}{
	CmdEntity:    {"ENTITY", false},
	CmdDelEnt:    {"DEL_ENT", true},
	CmdDelComp:   {"DEL_COMP", true},
	CmdMusic:     {"MUSIC", true},
	CmdGameEnd:   {"GAME_END", true},
	CmdDeath:     {"DEATH", true},
	CmdHere:      {"HERE", false},
	CmdGetEnt:    {"GET_ENT", false},
	CmdActShoot:  {"ACT_SHOOT", false},
	CmdActMove:   {"ACT_MOVE", false},
	CmdPing:      {"PING", false},
	CmdRel:       {"REL", false},
	CmdInput:     {"INPUT", false},
	CmdWelcome:   {"WELCOME", true},
	CmdBye:       {"BYE", true},
	CmdChallenge: {"CHALLENGE", false},
	CmdResponse:  {"RESPONSE", false},
	CmdPause:     {"PAUSE", true},
	CmdResults:   {"RESULTS", true},
	CmdState:     {"STATE", false},
	CmdDelEnts:   {"DEL_ENTS", true},
}

// String returns the protocol name of the command ("ENTITY", "DEL_ENT", ...)
// or "CMD_<n>" for an unknown id.
func (id CmdID) String() string {
	if id.Known() {
		return commands[id].name
	}
	return "CMD_" + strconv.Itoa(int(id))
}

// Known reports whether id is one of the commands 1..MaxCmd.
func (id CmdID) Known() bool { return id >= CmdEntity && id <= MaxCmd }

// ReliableCapable reports whether a REL command may precede id: DEL_ENT,
// DEL_COMP, MUSIC, GAME_END, DEATH, WELCOME, BYE, PAUSE, RESULTS and DEL_ENTS
// (docs/PROTOCOL.md §3.6.2; TestRelListMatchesDoc checks the document against it).
func (id CmdID) ReliableCapable() bool { return id.Known() && commands[id].reliable }

// Protocol limits of individual commands.
const (
	// EntityIDTopBit: entity ids on the wire must have the top bit clear
	// (valid non-negative C long long, seed 004 §3.1 "entId").
	EntityIDTopBit uint64 = 1 << 63
	// MaxInputs is the largest INPUT count.
	MaxInputs = 16
	// MaxSlot is the largest player slot (4 players: slots 0..3).
	MaxSlot = 3
	// DirMask: the defined ACT_MOVE direction bits (bit0 up, bit1 down, bit2 left, bit3 right).
	DirMask uint8 = 0x0f
	// ButtonsMask: the defined INPUT button bits (game.Buttons bits 0..5).
	ButtonsMask uint8 = 0x3f
	// Results and bye reasons.
	ResultDefeat, ResultVictory, ResultAborted  uint8 = 0, 1, 2
	ByeLeft, ByeTimeout, ByeShutdown, ByeKicked uint8 = 0, 1, 2, 3
)

// CmdOverhead is the size prefix plus the id byte: a command occupies
// CmdOverhead + len(arguments) bytes.
const CmdOverhead = 3

// Exact argument lengths of the fixed-size commands (bytes after the id).
const (
	DelEntArgs    = 8
	DelCompArgs   = 12
	MusicArgs     = 1
	GameEndArgs   = 1
	DeathArgs     = 10
	HereArgs      = 16
	GetEntArgs    = 8
	ActShootArgs  = 0
	ActMoveArgs   = 1
	PingArgs      = 4
	RelArgs       = 2
	WelcomeArgs   = 14
	ByeArgs       = 1
	ChallengeArgs = NonceSize
	ResponseArgs  = NonceSize + ProofSize
	// InputArgs(count) = 1 + 5*count.
	InputEntryArgs = 5
)

// appendFrame appends the size prefix (1+args) and the id.
func appendFrame(buf []byte, id CmdID, args int) []byte {
	buf = le.AppendUint16(buf, uint16(1+args))
	return append(buf, byte(id))
}

// frame checks the size prefix and id of the command at the start of b and
// returns its arguments and total length.
func frame(b []byte, id CmdID) (args []byte, n int, err error) {
	if len(b) < 2 {
		return nil, 0, ErrSize
	}
	size := int(le.Uint16(b))
	if size < 1 || size > len(b)-2 {
		return nil, 0, ErrSize
	}
	if CmdID(b[2]) != id {
		return nil, 0, ErrCmdID
	}
	return b[3 : 2+size], 2 + size, nil
}

// fixed is frame plus an exact argument-length check.
func fixed(b []byte, id CmdID, argLen int) ([]byte, int, error) {
	args, n, err := frame(b, id)
	if err != nil {
		return nil, 0, err
	}
	if len(args) != argLen {
		return nil, 0, ErrArgLen
	}
	return args, n, nil
}

func entityID(b []byte) (uint64, error) {
	v := le.Uint64(b)
	if v&EntityIDTopBit != 0 {
		return 0, ErrEntityID
	}
	return v, nil
}

// parseEntityCmd parses a command whose only argument is an entId (DEL_ENT, GET_ENT).
func parseEntityCmd(b []byte, id CmdID) (uint64, int, error) {
	a, n, err := fixed(b, id, 8)
	if err != nil {
		return 0, 0, err
	}
	e, err := entityID(a)
	if err != nil {
		return 0, 0, err
	}
	return e, n, nil
}
