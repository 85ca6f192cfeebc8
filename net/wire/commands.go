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

// DelEnt is DEL_ENT (id 2, s→c): the entity no longer exists
// (seed 004 §3.2.2). Arguments: entId u64 (8 bytes).
type DelEnt struct{ Entity uint64 }

// Append appends the 11-byte command.
func (c DelEnt) Append(buf []byte) []byte {
	buf = appendFrame(buf, CmdDelEnt, DelEntArgs)
	return le.AppendUint64(buf, c.Entity)
}

// Parse decodes the command at the start of b and returns its length.
func (c *DelEnt) Parse(b []byte) (n int, err error) {
	c.Entity, n, err = parseEntityCmd(b, CmdDelEnt)
	return n, err
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

// DelComp is DEL_COMP (id 3, s→c): the entity lost a component
// (seed 004 §3.2.2). Arguments: entId u64, componentId u32 (4 bytes, as the
// seed's "componentId" piece; the value must be a known component id).
type DelComp struct {
	Entity    uint64
	Component uint32
}

// Append appends the 15-byte command.
func (c DelComp) Append(buf []byte) []byte {
	buf = appendFrame(buf, CmdDelComp, DelCompArgs)
	buf = le.AppendUint64(buf, c.Entity)
	return le.AppendUint32(buf, c.Component)
}

// Parse decodes the command at the start of b and returns its length.
func (c *DelComp) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdDelComp, DelCompArgs)
	if err != nil {
		return 0, err
	}
	e, err := entityID(a)
	if err != nil {
		return 0, err
	}
	comp := le.Uint32(a[8:])
	if comp > 0xffff || ComponentSize(uint16(comp)) == 0 || comp == uint32(CompMotion) || comp == uint32(CompSpawn) {
		return 0, ErrComponent
	}
	c.Entity, c.Component = e, comp
	return n, nil
}

// Music is MUSIC (id 4, s→c): switch to song Song (seed 004 §3.2.2).
// Arguments: songId u8.
type Music struct{ Song uint8 }

// Append appends the 4-byte command.
func (c Music) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdMusic, MusicArgs), c.Song)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Music) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdMusic, MusicArgs)
	if err != nil {
		return 0, err
	}
	c.Song = a[0]
	return n, nil
}

// GameEnd is GAME_END (id 5, s→c): the game is over. Arguments (extension):
// result u8 = 0 defeat, 1 victory, 2 aborted; other values are invalid.
type GameEnd struct{ Result uint8 }

// Append appends the 4-byte command.
func (c GameEnd) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdGameEnd, GameEndArgs), c.Result)
}

// Parse decodes the command at the start of b and returns its length.
func (c *GameEnd) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdGameEnd, GameEndArgs)
	if err != nil {
		return 0, err
	}
	if a[0] > ResultAborted {
		return 0, ErrBadValue
	}
	c.Result = a[0]
	return n, nil
}

// Death is DEATH (id 6, s→c): a player's ship died. Arguments (extension):
// entId u64 (the ship), slot u8 (0..3), livesLeft u8.
type Death struct {
	Entity uint64
	Slot   uint8
	Lives  uint8
}

// Append appends the 13-byte command.
func (c Death) Append(buf []byte) []byte {
	buf = appendFrame(buf, CmdDeath, DeathArgs)
	buf = le.AppendUint64(buf, c.Entity)
	return append(buf, c.Slot, c.Lives)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Death) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdDeath, DeathArgs)
	if err != nil {
		return 0, err
	}
	e, err := entityID(a)
	if err != nil {
		return 0, err
	}
	if a[8] > MaxSlot {
		return 0, ErrBadValue
	}
	c.Entity, c.Slot, c.Lives = e, a[8], a[9]
	return n, nil
}

// Here is HERE (id 7, c→s): the client announces itself (seed 004 §3.3.2).
// Arguments: uuid, 16 raw bytes in RFC 4122 order (the lobby's user UUID);
// the nil UUID is invalid.
type Here struct{ UUID [16]byte }

// Append appends the 19-byte command.
func (c Here) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdHere, HereArgs), c.UUID[:]...)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Here) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdHere, HereArgs)
	if err != nil {
		return 0, err
	}
	var zero [16]byte
	if [16]byte(a) == zero {
		return 0, ErrBadValue
	}
	c.UUID = [16]byte(a)
	return n, nil
}

// GetEnt is GET_ENT (id 8, c→s): ask for the full state of an entity
// (seed 004 §3.3.2). Arguments: entId u64.
type GetEnt struct{ Entity uint64 }

// Append appends the 11-byte command.
func (c GetEnt) Append(buf []byte) []byte {
	buf = appendFrame(buf, CmdGetEnt, GetEntArgs)
	return le.AppendUint64(buf, c.Entity)
}

// Parse decodes the command at the start of b and returns its length.
func (c *GetEnt) Parse(b []byte) (n int, err error) {
	c.Entity, n, err = parseEntityCmd(b, CmdGetEnt)
	return n, err
}

// ActShoot is ACT_SHOOT (id 9, c→s): one normal shot (seed 004 §3.3.2,
// legacy input). No arguments.
type ActShoot struct{}

// Append appends the 3-byte command.
func (c ActShoot) Append(buf []byte) []byte {
	return appendFrame(buf, CmdActShoot, ActShootArgs)
}

// Parse decodes the command at the start of b and returns its length.
func (c *ActShoot) Parse(b []byte) (int, error) {
	_, n, err := fixed(b, CmdActShoot, ActShootArgs)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// ActMove is ACT_MOVE (id 10, c→s): the held direction until the next
// ACT_MOVE (seed 004 §3.3.2). Arguments: direction u8 bitmask, bit0 up,
// bit1 down, bit2 left, bit3 right; bits 4..7 must be 0.
type ActMove struct{ Dir uint8 }

// Append appends the 4-byte command.
func (c ActMove) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdActMove, ActMoveArgs), c.Dir)
}

// Parse decodes the command at the start of b and returns its length.
func (c *ActMove) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdActMove, ActMoveArgs)
	if err != nil {
		return 0, err
	}
	if a[0]&^DirMask != 0 {
		return 0, ErrBadValue
	}
	c.Dir = a[0]
	return n, nil
}

// Ping is PING (id 11, both ways): keep-alive and RTT probe. Arguments
// (extension): nonce u32; the server echoes a client's PING with the same
// nonce (the pong).
type Ping struct{ Nonce uint32 }

// Append appends the 7-byte command.
func (c Ping) Append(buf []byte) []byte {
	return le.AppendUint32(appendFrame(buf, CmdPing, PingArgs), c.Nonce)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Ping) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdPing, PingArgs)
	if err != nil {
		return 0, err
	}
	c.Nonce = le.Uint32(a)
	return n, nil
}

// Rel is REL (id 12, both ways, extension): the NEXT command of the datagram
// is reliable-ordered with id ID (1..65535, wraps skipping 0).
type Rel struct{ ID uint16 }

// Append appends the 5-byte command.
func (c Rel) Append(buf []byte) []byte {
	return le.AppendUint16(appendFrame(buf, CmdRel, RelArgs), c.ID)
}

// Parse decodes the command at the start of b and returns its length. It
// cannot check what follows; Validate does.
func (c *Rel) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdRel, RelArgs)
	if err != nil {
		return 0, err
	}
	id := le.Uint16(a)
	if id == 0 {
		return 0, ErrBadValue
	}
	c.ID = id
	return n, nil
}

// Input is INPUT (id 13, c→s, extension): the client's latest inputs,
// newest first. Arguments: count u8 (1..16), then count × {tick u32,
// buttons u8 (game.Buttons, bits 6..7 zero)}. Entry i is Ticks[i], Buttons[i].
type Input struct {
	Count   uint8
	Ticks   [MaxInputs]uint32
	Buttons [MaxInputs]uint8
}

// Append appends the command (4 + 5*Count bytes). A Count above 16 is
// written as 16.
func (c Input) Append(buf []byte) []byte {
	cnt := int(c.Count)
	if cnt > MaxInputs {
		cnt = MaxInputs
	}
	buf = appendFrame(buf, CmdInput, 1+InputEntryArgs*cnt)
	buf = append(buf, byte(cnt))
	for i := 0; i < cnt; i++ {
		buf = le.AppendUint32(buf, c.Ticks[i])
		buf = append(buf, c.Buttons[i])
	}
	return buf
}

// Parse decodes the command at the start of b and returns its length.
func (c *Input) Parse(b []byte) (int, error) {
	a, n, err := frame(b, CmdInput)
	if err != nil {
		return 0, err
	}
	if len(a) < 1 {
		return 0, ErrArgLen
	}
	cnt := int(a[0])
	if cnt < 1 || cnt > MaxInputs {
		return 0, ErrBadValue
	}
	if len(a) != 1+InputEntryArgs*cnt {
		return 0, ErrArgLen
	}
	for i := 0; i < cnt; i++ {
		if a[1+InputEntryArgs*i+4]&^ButtonsMask != 0 {
			return 0, ErrBadValue
		}
	}
	c.Count = uint8(cnt)
	for i := 0; i < cnt; i++ {
		e := a[1+InputEntryArgs*i:]
		c.Ticks[i] = le.Uint32(e)
		c.Buttons[i] = e[4]
	}
	for i := cnt; i < MaxInputs; i++ {
		c.Ticks[i], c.Buttons[i] = 0, 0
	}
	return n, nil
}

// Welcome is WELCOME (id 14, s→c, extension): the answer to HERE, sent
// reliable. Arguments: player entId u64, slot u8 (0..3, or SpectatorSlot for a
// spectator, whose entId is then 0), serverTick u32, tickRate u8 (60; 0 is
// invalid).
type Welcome struct {
	Entity   uint64
	Slot     uint8
	Tick     uint32
	TickRate uint8
}

// Append appends the 17-byte command.
func (c Welcome) Append(buf []byte) []byte {
	buf = appendFrame(buf, CmdWelcome, WelcomeArgs)
	buf = le.AppendUint64(buf, c.Entity)
	buf = append(buf, c.Slot)
	buf = le.AppendUint32(buf, c.Tick)
	return append(buf, c.TickRate)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Welcome) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdWelcome, WelcomeArgs)
	if err != nil {
		return 0, err
	}
	e, err := entityID(a)
	if err != nil {
		return 0, err
	}
	if (a[8] > MaxSlot && a[8] != SpectatorSlot) || a[13] == 0 {
		return 0, ErrBadValue
	}
	c.Entity, c.Slot, c.Tick, c.TickRate = e, a[8], le.Uint32(a[9:]), a[13]
	return n, nil
}

// Bye is BYE (id 15, both ways, extension): the peer is leaving. Arguments:
// reason u8 = 0 left, 1 timeout, 2 server shutdown, 3 kicked.
type Bye struct{ Reason uint8 }

// Append appends the 4-byte command.
func (c Bye) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdBye, ByeArgs), c.Reason)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Bye) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdBye, ByeArgs)
	if err != nil {
		return 0, err
	}
	if a[0] > ByeKicked {
		return 0, ErrBadValue
	}
	c.Reason = a[0]
	return n, nil
}

// NonceSize is the size of a CHALLENGE nonce and ProofSize that of a RESPONSE proof (bytes).
const (
	NonceSize = 16
	ProofSize = 16
)

// Challenge is CHALLENGE (id 16, s→c, extension): the server got a datagram with this player's
// token from an address the session is not bound to, and asks the sender to prove that it holds
// the player's session key (docs/PROTOCOL.md §5.9). Arguments: nonce, 16 bytes, opaque to the
// client. It travels alone, in a datagram outside the session's sequence (seq, ack, ackBits and
// relAck 0).
type Challenge struct{ Nonce [NonceSize]byte }

// Append appends the 19-byte command.
func (c Challenge) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdChallenge, ChallengeArgs), c.Nonce[:]...)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Challenge) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdChallenge, ChallengeArgs)
	if err != nil {
		return 0, err
	}
	c.Nonce = [NonceSize]byte(a)
	return n, nil
}

// Response is RESPONSE (id 17, c→s, extension): the answer to a CHALLENGE. Arguments: the
// challenge's nonce (16 bytes, echoed) and proof, 16 bytes: Prover.Proof of the token and the
// nonce under the player's session key (docs/PROTOCOL.md §5.9).
type Response struct {
	Nonce [NonceSize]byte
	Proof [ProofSize]byte
}

// Append appends the 35-byte command.
func (c Response) Append(buf []byte) []byte {
	buf = append(appendFrame(buf, CmdResponse, ResponseArgs), c.Nonce[:]...)
	return append(buf, c.Proof[:]...)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Response) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdResponse, ResponseArgs)
	if err != nil {
		return 0, err
	}
	c.Nonce = [NonceSize]byte(a[:NonceSize])
	c.Proof = [ProofSize]byte(a[NonceSize:])
	return n, nil
}
