// Package query answers Valve's server queries (A2S_INFO, A2S_PLAYER, with their challenge) and
// rtype's LAN discovery probes on the game's UDP port, and asks them as a client (Ping,
// DiscoverLAN). Encoders and decoders are pure; Answerer is the server's answerer of the game
// socket's connectionless datagrams (instance.Config.Connectionless); docs/PROTOCOL.md §12 and
// §13 give every byte.
package query

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/wire"
)

// The connectionless prefix (Valve's: a datagram that is not split) and the type bytes after it
// (docs/PROTOCOL.md §12). Every datagram of this package starts with Prefix and one type byte.
const (
	TypeInfoRequest   = 'T' // A2S_INFO request
	TypeInfo          = 'I' // A2S_INFO reply
	TypePlayerRequest = 'U' // A2S_PLAYER request
	TypePlayer        = 'D' // A2S_PLAYER reply
	TypeChallenge     = 'A' // S2C_CHALLENGE
	TypeLANProbe      = 'l' // LAN discovery probe (rtype's, §13)
	TypeLANAnswer     = 'L' // LAN discovery answer
)

// Prefix starts every connectionless datagram: -1 as a little-endian int32.
var Prefix = [4]byte{0xFF, 0xFF, 0xFF, 0xFF}

// infoPayload is the string A2S_INFO requests carry, with its terminating NUL.
const infoPayload = "Source Engine Query\x00"

// Sizes of the requests and the challenge (bytes, prefix included).
const (
	InfoRequestSize     = 5 + len(infoPayload)   // without the challenge: 25
	InfoRequestFullSize = InfoRequestSize + 4    // with it: 29
	PlayerRequestSize   = 5 + 4                  // 9
	ChallengeSize       = 5 + 4                  // 9
	NoChallenge         = uint32(math.MaxUint32) // A2S_PLAYER's "give me a challenge" value
	maxReply            = wire.MaxDatagram       // no reply is split: each fits one datagram
	Folder              = "rtype"                // A2S_INFO's folder (the game's directory)
	GameName            = "R-Type"               // A2S_INFO's game (its description)
	ServerDedicated     = 'd'                    // A2S_INFO's server type
	VisibilityPublic    = 0                      // no password
	VisibilityPrivate   = 1                      // password
	edfPort             = 0x80                   // extra data flag: the game port follows
	edfKeywords         = 0x20                   // extra data flag: the keywords follow
	maxField            = 64                     // longest string field kept (bytes)
	maxKeywords         = 200                    // longest keywords kept (bytes)
	playerEntryFixed    = 1 + 1 + 4 + 4          // index, NUL, score, duration
	playerReplyFixed    = 5 + 1                  // prefix, type, count
	defaultEnvironment  = 'l'                    // Linux (the server's usual home)
	maxPlayersByte      = math.MaxUint8          // players and max players are one byte each
	keywordLobbies      = "lobbies="             // open lobbies, in the keywords
	keywordFleet        = "fleet"                // the server runs the lobby/host split
	keywordStages       = "stages="              // the stages offered, separated by '|'
	keywordSep          = ","                    // between keywords
	stagesSep           = "|"                    // between stage names
	errPrefix           = "query: "              // every error of the package
	playerNameMax       = lobby.MaxNameLen       // longest player name kept (bytes)
	maxPlayersListed    = (maxReply - playerReplyFixed) / (playerEntryFixed + playerNameMax)
)

// Info is what A2S_INFO tells of a server (docs/PROTOCOL.md §12.2).
type Info struct {
	Name        string // the server's name (-name)
	Map         string // the default stage of new lobbies
	Folder      string // "rtype"
	Game        string // "R-Type"
	Players     int    // players in lobbies and games (at most 255 on the wire)
	MaxPlayers  int    // capacity (at most 255 on the wire)
	Password    bool   // the lobby asks a password
	Version     string // the server's build (buildinfo)
	Protocol    int    // the game protocol's version (wire.Version), A2S_INFO's protocol byte
	Environment byte   // 'l', 'w' or 'm'
	// LobbyPort is the TCP port of the lobby players dial (A2S_INFO's game port, EDF 0x80); the
	// host is the one the query went to.
	LobbyPort int
	Lobbies   int      // open lobbies (waiting for players), from the keywords
	Fleet     bool     // runs the lobby/host split, from the keywords
	Stages    []string // the stages offered, from the keywords
	// Addr is the lobby's address host:port (the queried host and LobbyPort): set by the client
	// side (Ping, DiscoverLAN), not on the wire.
	Addr string
}

// Player is one player of A2S_PLAYER (docs/PROTOCOL.md §12.3).
type Player struct {
	Name     string
	Score    int32
	Duration float32 // seconds in the game
}

// Errors of the decoders.
var (
	ErrShort  = errors.New(errPrefix + "datagram too short")
	ErrPrefix = errors.New(errPrefix + "not a connectionless datagram (no FF FF FF FF)")
	ErrType   = errors.New(errPrefix + "unexpected type byte")
	ErrString = errors.New(errPrefix + "string without its terminating NUL")
)

// clean makes s a string field: no NUL (it ends a field), valid UTF-8, at most max bytes (cut on
// a rune boundary).
func clean(s string, max int) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	s = strings.ToValidUTF8(s, "")
	for len(s) > max {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
	}
	return s
}

func appendString(b []byte, s string, max int) []byte {
	b = append(b, clean(s, max)...)
	return append(b, 0)
}

// MaxCount is the largest player count and capacity A2S_INFO carries (one byte each): a server
// with more says MaxCount.
const MaxCount = maxPlayersByte

func clampByte(n int) byte {
	return byte(min(max(n, 0), maxPlayersByte))
}

// AppendInfoRequest appends an A2S_INFO request; challenge 0 sends none (the first request).
func AppendInfoRequest(b []byte, challenge uint32) []byte {
	b = append(b, Prefix[:]...)
	b = append(b, TypeInfoRequest)
	b = append(b, infoPayload...)
	if challenge != 0 {
		b = binary.LittleEndian.AppendUint32(b, challenge)
	}
	return b
}

// AppendPlayerRequest appends an A2S_PLAYER request with challenge (NoChallenge asks for one).
func AppendPlayerRequest(b []byte, challenge uint32) []byte {
	b = append(b, Prefix[:]...)
	b = append(b, TypePlayerRequest)
	return binary.LittleEndian.AppendUint32(b, challenge)
}

// AppendChallenge appends S2C_CHALLENGE.
func AppendChallenge(b []byte, challenge uint32) []byte {
	b = append(b, Prefix[:]...)
	b = append(b, TypeChallenge)
	return binary.LittleEndian.AppendUint32(b, challenge)
}

// keywords is the EDF keywords string of in: "lobbies=N[,fleet][,stages=a|b]", at most
// maxKeywords bytes (the stages that do not fit are left out).
func keywords(in *Info) string {
	k := keywordLobbies + strconv.Itoa(max(in.Lobbies, 0))
	if in.Fleet {
		k += keywordSep + keywordFleet
	}
	if len(in.Stages) > 0 {
		s := keywordSep + keywordStages
		n := 0
		for _, st := range in.Stages {
			st = clean(st, maxField)
			if st == "" || strings.ContainsAny(st, keywordSep+stagesSep) {
				continue
			}
			add := st
			if n > 0 {
				add = stagesSep + st
			}
			if len(k)+len(s)+len(add) > maxKeywords {
				break
			}
			s += add
			n++
		}
		if n > 0 {
			k += s
		}
	}
	return k
}

// AppendInfo appends the A2S_INFO reply of in (docs/PROTOCOL.md §12.2): strings are cut to
// their limits, so the reply always fits one datagram.
func AppendInfo(b []byte, in *Info) []byte {
	b = append(b, Prefix[:]...)
	b = append(b, TypeInfo)
	return appendInfoBody(b, in)
}

// appendInfoBody appends A2S_INFO's fields after its type byte (the LAN answer carries them too).
func appendInfoBody(b []byte, in *Info) []byte {
	b = append(b, byte(min(max(in.Protocol, 0), math.MaxUint8)))
	b = appendString(b, in.Name, maxField)
	b = appendString(b, in.Map, maxField)
	b = appendString(b, orDefault(in.Folder, Folder), maxField)
	b = appendString(b, orDefault(in.Game, GameName), maxField)
	b = binary.LittleEndian.AppendUint16(b, 0) // Steam application ID: none
	b = append(b, clampByte(in.Players), clampByte(in.MaxPlayers), 0 /* bots */, ServerDedicated)
	env := in.Environment
	if env == 0 {
		env = defaultEnvironment
	}
	vis := byte(VisibilityPublic)
	if in.Password {
		vis = VisibilityPrivate
	}
	b = append(b, env, vis, 0 /* VAC: none */)
	b = appendString(b, in.Version, maxField)
	b = append(b, edfPort|edfKeywords)
	b = binary.LittleEndian.AppendUint16(b, uint16(min(max(in.LobbyPort, 0), math.MaxUint16)))
	return appendString(b, keywords(in), maxKeywords)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// reader reads the fields of a datagram; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) < 1 {
		r.fail(ErrShort)
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) u16() uint16 {
	if r.err != nil || len(r.b) < 2 {
		r.fail(ErrShort)
		return 0
	}
	v := binary.LittleEndian.Uint16(r.b)
	r.b = r.b[2:]
	return v
}

func (r *reader) u32() uint32 {
	if r.err != nil || len(r.b) < 4 {
		r.fail(ErrShort)
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *reader) u64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.fail(ErrShort)
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *reader) string() string {
	if r.err != nil {
		return ""
	}
	i := bytes.IndexByte(r.b, 0)
	if i < 0 {
		r.fail(ErrString)
		return ""
	}
	s := strings.ToValidUTF8(string(r.b[:i]), "\uFFFD")
	r.b = r.b[i+1:]
	return s
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// header checks b's prefix and type byte and returns what follows.
func header(b []byte, typ byte) ([]byte, error) {
	if len(b) < 5 {
		return nil, ErrShort
	}
	if [4]byte(b[:4]) != Prefix {
		return nil, ErrPrefix
	}
	if b[4] != typ {
		return nil, ErrType
	}
	return b[5:], nil
}

// ParseChallenge reads S2C_CHALLENGE.
func ParseChallenge(b []byte) (uint32, error) {
	rest, err := header(b, TypeChallenge)
	if err != nil {
		return 0, err
	}
	if len(rest) < 4 {
		return 0, ErrShort
	}
	return binary.LittleEndian.Uint32(rest), nil
}

// ParseInfo reads an A2S_INFO reply (any Source server's: the fields rtype does not send are
// read and skipped).
func ParseInfo(b []byte) (Info, error) {
	rest, err := header(b, TypeInfo)
	if err != nil {
		return Info{}, err
	}
	return parseInfoBody(rest)
}

func parseInfoBody(rest []byte) (Info, error) {
	r := &reader{b: rest}
	var in Info
	in.Protocol = int(r.byte())
	in.Name = r.string()
	in.Map = r.string()
	in.Folder = r.string()
	in.Game = r.string()
	appID := r.u16()
	in.Players = int(r.byte())
	in.MaxPlayers = int(r.byte())
	r.byte() // bots
	r.byte() // server type
	in.Environment = r.byte()
	in.Password = r.byte() != VisibilityPublic
	r.byte()           // VAC
	if appID == 2400 { // The Ship's three extra bytes
		r.byte()
		r.byte()
		r.byte()
	}
	in.Version = r.string()
	if r.err == nil && len(r.b) > 0 {
		edf := r.byte()
		if edf&edfPort != 0 {
			in.LobbyPort = int(r.u16())
		}
		if edf&0x10 != 0 {
			r.u64() // SteamID
		}
		if edf&0x40 != 0 {
			r.u16()    // SourceTV port
			r.string() // SourceTV name
		}
		if edf&edfKeywords != 0 {
			parseKeywords(&in, r.string())
		}
		if edf&0x01 != 0 {
			r.u64() // GameID
		}
	}
	if r.err != nil {
		return Info{}, r.err
	}
	return in, nil
}

func parseKeywords(in *Info, k string) {
	for _, kw := range strings.Split(k, keywordSep) {
		switch {
		case strings.HasPrefix(kw, keywordLobbies):
			if n, err := strconv.Atoi(kw[len(keywordLobbies):]); err == nil && n >= 0 {
				in.Lobbies = n
			}
		case kw == keywordFleet:
			in.Fleet = true
		case strings.HasPrefix(kw, keywordStages):
			if s := kw[len(keywordStages):]; s != "" {
				in.Stages = strings.Split(s, stagesSep)
			}
		}
	}
}

// MaxPlayersListed is the most players an A2S_PLAYER reply lists: with every name at its
// longest, the reply still fits one datagram (wire.MaxDatagram), so no reply is ever split.
const MaxPlayersListed = maxPlayersListed

// AppendPlayers appends the A2S_PLAYER reply of ps (the first MaxPlayersListed of them).
func AppendPlayers(b []byte, ps []Player) []byte {
	ps = ps[:min(len(ps), MaxPlayersListed)]
	b = append(b, Prefix[:]...)
	b = append(b, TypePlayer, byte(len(ps)))
	for i, p := range ps {
		b = append(b, byte(i))
		b = appendString(b, p.Name, playerNameMax)
		b = binary.LittleEndian.AppendUint32(b, uint32(p.Score))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(p.Duration))
	}
	return b
}

// ParsePlayers reads an A2S_PLAYER reply.
func ParsePlayers(b []byte) ([]Player, error) {
	rest, err := header(b, TypePlayer)
	if err != nil {
		return nil, err
	}
	r := &reader{b: rest}
	n := int(r.byte())
	if r.err == nil && n*playerEntryFixed > len(r.b) {
		return nil, ErrShort // bounded by the datagram, not by the count it claims
	}
	ps := make([]Player, 0, n)
	for range n {
		r.byte() // index
		p := Player{Name: r.string(), Score: int32(r.u32()), Duration: math.Float32frombits(r.u32())}
		if r.err != nil {
			return nil, r.err
		}
		ps = append(ps, p)
	}
	return ps, r.err
}
