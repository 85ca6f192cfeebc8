package wire

// ParseCmd checks the single command at the start of b with the typed Parse
// of its id and returns the id and the command's length (size prefix
// included). Errors: ErrSize, ErrUnknownCmd and those of the typed Parse.
// It does not check what follows a REL (Validate does).
func ParseCmd(b []byte) (id CmdID, n int, err error) {
	if len(b) < 3 {
		return 0, 0, ErrSize
	}
	size := int(le.Uint16(b))
	if size < 1 || size > len(b)-2 {
		return 0, 0, ErrSize
	}
	id = CmdID(b[2])
	switch id {
	case CmdEntity:
		var c Entity
		n, err = c.Parse(b)
	case CmdDelEnt:
		var c DelEnt
		n, err = c.Parse(b)
	case CmdDelComp:
		var c DelComp
		n, err = c.Parse(b)
	case CmdMusic:
		var c Music
		n, err = c.Parse(b)
	case CmdGameEnd:
		var c GameEnd
		n, err = c.Parse(b)
	case CmdDeath:
		var c Death
		n, err = c.Parse(b)
	case CmdHere:
		var c Here
		n, err = c.Parse(b)
	case CmdGetEnt:
		var c GetEnt
		n, err = c.Parse(b)
	case CmdActShoot:
		var c ActShoot
		n, err = c.Parse(b)
	case CmdActMove:
		var c ActMove
		n, err = c.Parse(b)
	case CmdPing:
		var c Ping
		n, err = c.Parse(b)
	case CmdRel:
		var c Rel
		n, err = c.Parse(b)
	case CmdInput:
		var c Input
		n, err = c.Parse(b)
	case CmdWelcome:
		var c Welcome
		n, err = c.Parse(b)
	case CmdBye:
		var c Bye
		n, err = c.Parse(b)
	case CmdChallenge:
		var c Challenge
		n, err = c.Parse(b)
	case CmdResponse:
		var c Response
		n, err = c.Parse(b)
	case CmdPause:
		var c Pause
		n, err = c.Parse(b)
	case CmdResults:
		var c Results
		n, err = c.Parse(b)
	case CmdState:
		var c State
		n, err = c.Parse(b)
	case CmdDelEnts:
		var c DelEnts
		n, err = c.Parse(b)
	default:
		return id, 0, ErrUnknownCmd
	}
	if err != nil {
		return id, 0, err
	}
	return id, n, nil
}

// Validate checks a whole datagram (docs/PROTOCOL.md §6): the header
// (length >= HeaderSize else ErrShort, <= MaxDatagram else ErrTooLarge,
// magic, version, flags == 0, token != 0) and then every command in turn
// (size prefix >= 1 and within the datagram, known id, exact argument
// length, values in range, entity ids with the top bit clear, ENTITY
// components known, of their fixed size, not repeated and as many as
// compCount, and every REL followed by a reliable-capable command). It
// returns the first problem as one of the sentinel errors, or nil.
// A datagram with no command (header only) is valid. Zero allocation.
func Validate(b []byte) error {
	if len(b) < HeaderSize {
		return ErrShort
	}
	if len(b) > MaxDatagram {
		return ErrTooLarge
	}
	var h Header
	if _, err := h.Parse(b); err != nil {
		return err
	}
	p := b[HeaderSize:]
	afterRel := false
	for len(p) > 0 {
		id, n, err := ParseCmd(p)
		if err != nil {
			return err
		}
		if afterRel && !id.ReliableCapable() {
			return ErrRel
		}
		afterRel = id == CmdRel
		p = p[n:]
	}
	if afterRel {
		return ErrRel
	}
	return nil
}

// Open validates datagram b, decodes its header into h and returns a Reader
// over its commands. On error h is unspecified and the Reader is empty.
func Open(b []byte, h *Header) (Reader, error) {
	if err := Validate(b); err != nil {
		return Reader{}, err
	}
	h.Parse(b)
	return NewReader(b[HeaderSize:]), nil
}

// Reader iterates the commands of a datagram's payload (the bytes after the
// header). Use it on a datagram that passed Validate; on anything else it
// stops at the first malformed frame (and never panics).
//
//	r := wire.NewReader(datagram[wire.HeaderSize:])
//	for r.Next() {
//		switch r.ID() {
//		case wire.CmdPing:
//			var p wire.Ping
//			p.Parse(r.Cmd())
//		}
//	}
type Reader struct {
	rest []byte
	cmd  []byte
}

// NewReader returns a Reader over payload (the commands after the header).
func NewReader(payload []byte) Reader { return Reader{rest: payload} }

// Next advances to the next command; false at the end.
func (r *Reader) Next() bool {
	if len(r.rest) < 3 {
		r.rest, r.cmd = nil, nil
		return false
	}
	size := int(le.Uint16(r.rest))
	if size < 1 || size > len(r.rest)-2 {
		r.rest, r.cmd = nil, nil
		return false
	}
	r.cmd = r.rest[: 2+size : 2+size]
	r.rest = r.rest[2+size:]
	return true
}

// ID returns the current command's id.
func (r *Reader) ID() CmdID {
	if len(r.cmd) < 3 {
		return 0
	}
	return CmdID(r.cmd[2])
}

// Cmd returns the current command, size prefix included, ready for the
// typed Parse. It is a view into the datagram.
func (r *Reader) Cmd() []byte { return r.cmd }
