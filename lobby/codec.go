package lobby

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/joincode"
)

// MaxLine is the largest lobby line in bytes, the terminating CRLF included
// (decision, docs/PROTOCOL.md §2.1; seed 004 §2.1 sets no limit). A peer that
// sends a longer line, or 4096 bytes without a LF, has its connection closed.
const MaxLine = 4096

// Response codes (seed 004 §2.2.1).
const (
	CodeOK           = 200 // request done
	CodeForbidden    = 401 // missing, malformed or unknown user UUID header
	CodeWrongRequest = 500 // malformed line, unknown command, bad arguments or refused action
)

// RateRefusal is the reason of the 500 a line over its connection's command rate gets
// (docs/PROTOCOL.md §2.3): "too many commands: at most 10 per second".
func RateRefusal(rate float64) string {
	return rateRefusalPrefix + strconv.FormatFloat(rate, 'g', -1, 64) + " per second"
}

const rateRefusalPrefix = "too many commands: at most "

// ParseRateRefusal returns the rate a RateRefusal reason names, and whether reason is one.
func ParseRateRefusal(reason string) (float64, bool) {
	n, ok := strings.CutPrefix(reason, rateRefusalPrefix)
	if !ok {
		return 0, false
	}
	n, ok = strings.CutSuffix(n, " per second")
	r, err := strconv.ParseFloat(n, 64)
	return r, ok && err == nil && r > 0
}

// Client command names (seed 004 §2.4; GET_STAGES, SET_STAGE and GET_STAGE are
// extensions, docs/PROTOCOL.md §2.4.6-§2.4.8; CHAT is §2.4.9) and server push
// names (seed 004 §2.3; MEMBERS, END and STAGE are extensions, docs/PROTOCOL.md
// §2.5; CHAT and BROADCAST are §2.5.5 and §2.5.6).
const (
	CmdAuthenticate = "AUTHENTICATE"
	CmdGetLobbies   = "GET_LOBBIES"
	CmdJoinLobby    = "JOIN_LOBBY"
	CmdStart        = "START"
	CmdLeave        = "LEAVE"
	CmdGetStages    = "GET_STAGES"
	CmdSetStage     = "SET_STAGE"
	CmdGetStage     = "GET_STAGE"
	CmdChat         = "CHAT"
	// CmdSetDifficulty (extension, docs/PROTOCOL.md §2.4.11): the owner's difficulty choice.
	CmdSetDifficulty = "SET_DIFFICULTY"
	// CmdSetSection (extension, docs/PROTOCOL.md §2.4.16): a solo lobby's practice section.
	CmdSetSection = "SET_SECTION"
	// CmdSetLives (extension, docs/PROTOCOL.md §2.4.17): a solo lobby's practice trainer,
	// infinite lives or the level's.
	CmdSetLives = "SET_LIVES"
	// CmdRetry (extension, docs/PROTOCOL.md §2.4.18): a solo lobby's game starts again.
	CmdRetry = "RETRY"

	PushStart     = "START"
	PushMembers   = "MEMBERS"
	PushEnd       = "END"
	PushStage     = "STAGE"
	PushChat      = "CHAT"
	PushBroadcast = "BROADCAST"
	// PushDifficulty (extension, docs/PROTOCOL.md §2.5.8): the lobby's difficulty level.
	PushDifficulty = "DIFFICULTY"
	// PushRun (extension, docs/PROTOCOL.md §2.5.10): the stages of the lobby's arcade run.
	PushRun = "RUN"
	// PushSection (extension, docs/PROTOCOL.md §2.5.11): the lobby's practice section.
	PushSection = "SECTION"
	// PushLives (extension, docs/PROTOCOL.md §2.5.12): the lobby's lives, infinite or the level's.
	PushLives = "LIVES"
	// PushClosing (extension, docs/PROTOCOL.md §2.5.13): the server is closing, why, the time
	// its games have left, and the operator's last broadcast.
	PushClosing = "CLOSING"
)

// ErrLineTooLong is returned when a line (CRLF included) exceeds MaxLine bytes.
var ErrLineTooLong = errors.New("lobby: line longer than 4096 bytes (CRLF included)")

// SyntaxError reports a line that does not follow the lobby line grammar
// (docs/PROTOCOL.md §2.1/§2.2). Reason is short, printable ASCII and is what
// the server sends back in the body of its 500 response.
type SyntaxError struct{ Reason string }

func (e *SyntaxError) Error() string { return "lobby: malformed line: " + e.Reason }

func syntaxErr(format string, args ...any) error {
	return &SyntaxError{Reason: fmt.Sprintf(format, args...)}
}

// Command is one client command or server push line (seed 004 §2.1):
//
//	<CMD> SP <HEADER> ";" <ARGS> CRLF
//
// Name is [A-Z][A-Z0-9_]* ("fully capitalized"). Header is the client's UUID for
// client commands, the server's UUID for pushes, and empty for AUTHENTICATE; it
// holds printable ASCII without space or ';'. Args are the comma-separated
// arguments: printable ASCII (0x20..0x7E) without ','. An empty argument string
// parses to nil Args, so `JOIN_LOBBY <uuid>;` has no arguments (Args []string{""}
// formats to the same line).
type Command struct {
	Name   string
	Header string
	Args   []string
}

// Response is one server response line (seed 004 §2.2):
//
//	<CODE> SP <HEADER> SP <BODY> CRLF
//
// Code is three decimal digits (100..999), Header the server UUID (printable,
// no space, not empty) and Body printable ASCII that may contain spaces and may
// be empty (the SP before it is always present).
type Response struct {
	Code   int
	Header string
	Body   string
}

// ParseCommand parses one complete client command or server push line,
// CRLF included. It never panics; errors are ErrLineTooLong or *SyntaxError.
// The returned strings do not alias line.
func ParseCommand(line []byte) (Command, error) {
	body, err := trimCRLF(line)
	if err != nil {
		return Command{}, err
	}
	if len(body) == 0 {
		return Command{}, syntaxErr("empty line")
	}
	sp := bytes.IndexByte(body, ' ')
	if sp < 0 {
		return Command{}, syntaxErr("missing space after the command name")
	}
	name := body[:sp]
	if !validCmdName(name) {
		return Command{}, syntaxErr("command name must be A-Z, 0-9 or _ and start with a capital letter")
	}
	rest := body[sp+1:]
	semi := bytes.IndexByte(rest, ';')
	if semi < 0 {
		return Command{}, syntaxErr("missing ';' after the header")
	}
	header, args := rest[:semi], rest[semi+1:]
	if i := bytes.IndexByte(header, ' '); i >= 0 {
		return Command{}, syntaxErr("space inside the header")
	}
	cmd := Command{Name: string(name), Header: string(header)}
	if len(args) > 0 {
		cmd.Args = strings.Split(string(args), ",")
	}
	return cmd, nil
}

// AppendCommand appends c as a wire line (CRLF included) to buf. It refuses
// (with *SyntaxError or ErrLineTooLong, buf unchanged) anything that would not
// parse back to c, so no caller can inject a line break or a separator.
func AppendCommand(buf []byte, c Command) ([]byte, error) {
	if !validCmdName([]byte(c.Name)) {
		return buf, syntaxErr("invalid command name %q", c.Name)
	}
	if strings.ContainsAny(c.Header, " ;") || !printable(c.Header) {
		return buf, syntaxErr("invalid header %q", c.Header)
	}
	n := len(c.Name) + 1 + len(c.Header) + 1 + 2
	for i, a := range c.Args {
		if strings.IndexByte(a, ',') >= 0 || !printable(a) {
			return buf, syntaxErr("invalid argument %q", a)
		}
		if i > 0 {
			n++
		}
		n += len(a)
	}
	if n > MaxLine {
		return buf, ErrLineTooLong
	}
	buf = append(buf, c.Name...)
	buf = append(buf, ' ')
	buf = append(buf, c.Header...)
	buf = append(buf, ';')
	for i, a := range c.Args {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, a...)
	}
	return append(buf, '\r', '\n'), nil
}

// IsResponse reports whether line starts like a response (three digits), as
// opposed to a server push that starts with a capital letter.
func IsResponse(line []byte) bool {
	return len(line) >= 3 && isDigit(line[0]) && isDigit(line[1]) && isDigit(line[2])
}

// ParseResponse parses one complete response line, CRLF included. It never
// panics; errors are ErrLineTooLong or *SyntaxError.
func ParseResponse(line []byte) (Response, error) {
	body, err := trimCRLF(line)
	if err != nil {
		return Response{}, err
	}
	if len(body) < 4 || !IsResponse(body) || body[3] != ' ' {
		return Response{}, syntaxErr("response must start with a 3-digit code and a space")
	}
	if body[0] == '0' {
		return Response{}, syntaxErr("response code must be 100..999")
	}
	code := int(body[0]-'0')*100 + int(body[1]-'0')*10 + int(body[2]-'0')
	rest := body[4:]
	sp := bytes.IndexByte(rest, ' ')
	if sp < 0 {
		return Response{}, syntaxErr("missing space after the response header")
	}
	if sp == 0 {
		return Response{}, syntaxErr("empty response header")
	}
	return Response{Code: code, Header: string(rest[:sp]), Body: string(rest[sp+1:])}, nil
}

// AppendResponse appends r as a wire line (CRLF included) to buf, refusing
// anything that would not parse back to r.
func AppendResponse(buf []byte, r Response) ([]byte, error) {
	if r.Code < 100 || r.Code > 999 {
		return buf, syntaxErr("invalid response code %d", r.Code)
	}
	if r.Header == "" || strings.IndexByte(r.Header, ' ') >= 0 || !printable(r.Header) {
		return buf, syntaxErr("invalid header %q", r.Header)
	}
	if !printable(r.Body) {
		return buf, syntaxErr("invalid body %q", r.Body)
	}
	if 4+len(r.Header)+1+len(r.Body)+2 > MaxLine {
		return buf, ErrLineTooLong
	}
	buf = strconv.AppendInt(buf, int64(r.Code), 10)
	buf = append(buf, ' ')
	buf = append(buf, r.Header...)
	buf = append(buf, ' ')
	buf = append(buf, r.Body...)
	return append(buf, '\r', '\n'), nil
}

// LobbyInfo is one entry of the GET_LOBBIES list (seed 004 §2.2.2, extended
// with the stage, docs/PROTOCOL.md §2.2.2): the join code, the number of
// members (0..4), whether a game is running and the name of the lobby's stage.
type LobbyInfo struct {
	Code    string
	Players int
	Running bool
	Stage   string
	// Difficulty is the lobby's level (the fifth field; Normal from a server without levels).
	Difficulty rules.Difficulty
}

// MaxLobbyEntry is the longest GET_LOBBIES entry in bytes:
// "(" code "," 1 digit "," "false" "," the longest stage name "," "normal" ")" ";".
const MaxLobbyEntry = 1 + CodeLen + 1 + 1 + 1 + 5 + 1 + stagefile.MaxNameLen + 1 + len("normal") + 2

// AppendLobbies appends the GET_LOBBIES response body, one
// "(<code>,<players>,<true|false>,<stage>,<difficulty>);" per lobby (an empty list is an
// empty body).
func AppendLobbies(buf []byte, ls []LobbyInfo) []byte {
	for _, l := range ls {
		buf = append(buf, '(')
		buf = append(buf, l.Code...)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(l.Players), 10)
		buf = append(buf, ',')
		buf = strconv.AppendBool(buf, l.Running)
		buf = append(buf, ',')
		buf = append(buf, l.Stage...)
		buf = append(buf, ',')
		buf = append(buf, l.Difficulty.String()...)
		buf = append(buf, ')', ';')
	}
	return buf
}

// ParseLobbies parses a GET_LOBBIES response body written by AppendLobbies.
// Codes must be valid join codes, players 0..4 in decimal without sign or
// leading zero, running exactly "true" or "false", stage a valid stage name
// (stagefile.ValidName); every entry ends with ';'.
func ParseLobbies(body string) ([]LobbyInfo, error) {
	var out []LobbyInfo
	for body != "" {
		end := strings.IndexByte(body, ';')
		if end < 0 {
			return nil, syntaxErr("lobby entry without ';'")
		}
		entry := body[:end]
		body = body[end+1:]
		if len(entry) < 2 || entry[0] != '(' || entry[len(entry)-1] != ')' {
			return nil, syntaxErr("lobby entry %q is not (code,players,running,stage)", entry)
		}
		f := strings.Split(entry[1:len(entry)-1], ",")
		if len(f) != 4 && len(f) != 5 { // 4: a server from before difficulty levels (Normal)
			return nil, syntaxErr("lobby entry %q is not (code,players,running,stage,difficulty)", entry)
		}
		var level rules.Difficulty
		if len(f) == 5 {
			var err error
			if level, err = rules.ParseDifficulty(f[4]); err != nil {
				return nil, syntaxErr("lobby entry %q: difficulty must be easy, normal or hard", entry)
			}
		}
		if !ValidCode(f[0]) {
			return nil, syntaxErr("lobby entry %q: invalid code", entry)
		}
		if len(f[1]) != 1 || f[1][0] < '0' || f[1][0] > '0'+rules.MaxPlayers {
			return nil, syntaxErr("lobby entry %q: players must be 0..%d", entry, rules.MaxPlayers)
		}
		var running bool
		switch f[2] {
		case "true":
			running = true
		case "false":
		default:
			return nil, syntaxErr("lobby entry %q: running must be true or false", entry)
		}
		if !stagefile.ValidName(f[3]) {
			return nil, syntaxErr("lobby entry %q: invalid stage name", entry)
		}
		out = append(out, LobbyInfo{Code: f[0], Players: int(f[1][0] - '0'), Running: running, Stage: f[3], Difficulty: level})
	}
	return out, nil
}

// StageInfo names one stage a server offers: its name and the StageHash of its
// file (docs/PROTOCOL.md §2.4.6).
type StageInfo struct {
	Name string
	Hash string
}

// ValidStageHash reports whether s is a stage hash: stagefile.HashLen
// lowercase hex digits.
func ValidStageHash(s string) bool {
	if len(s) != stagefile.HashLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && (s[i] < 'a' || s[i] > 'f') {
			return false
		}
	}
	return true
}

// SessionKeyLen is the length of a session key in the START push: 32
// lowercase hex digits, the 16 bytes of the key (docs/PROTOCOL.md §2.5.1).
const SessionKeyLen = 32

// ValidSessionKey reports whether s is a session key as the START push
// carries it: exactly SessionKeyLen lowercase hex digits.
func ValidSessionKey(s string) bool {
	if len(s) != SessionKeyLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && (s[i] < 'a' || s[i] > 'f') {
			return false
		}
	}
	return true
}

// AppendStages appends the GET_STAGES response body: "<name>:<hash>" per
// stage, separated by ',' (the server's default first).
func AppendStages(buf []byte, ss []StageInfo) []byte {
	for i, st := range ss {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, st.Name...)
		buf = append(buf, ':')
		buf = append(buf, st.Hash...)
	}
	return buf
}

// ParseStages parses a GET_STAGES response body: one or more
// "<name>:<hash>" separated by ',', names unique.
func ParseStages(body string) ([]StageInfo, error) {
	if body == "" {
		return nil, syntaxErr("empty stage list")
	}
	var out []StageInfo
	for _, e := range strings.Split(body, ",") {
		name, hash, ok := strings.Cut(e, ":")
		if !ok || !stagefile.ValidName(name) || !ValidStageHash(hash) {
			return nil, syntaxErr("stage entry %q is not <name>:<16 hex digits>", e)
		}
		for _, o := range out {
			if o.Name == name {
				return nil, syntaxErr("stage %q listed twice", name)
			}
		}
		out = append(out, StageInfo{Name: name, Hash: hash})
	}
	return out, nil
}

// ParseRun parses the stages of a RUN push (docs/PROTOCOL.md §2.5.10), the arguments after the
// lobby code: none (one stage: nil), or 2..stagefile.MaxRun `<name>:<hash>` entries in the
// order they are played (a stage may come back).
func ParseRun(args []string) ([]StageInfo, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if len(args) < 2 || len(args) > stagefile.MaxRun {
		return nil, syntaxErr("an arcade run of %d stages (want 2..%d)", len(args), stagefile.MaxRun)
	}
	out := make([]StageInfo, len(args))
	for i, e := range args {
		name, hash, ok := strings.Cut(e, ":")
		if !ok || !stagefile.ValidName(name) || !ValidStageHash(hash) {
			return nil, syntaxErr("run entry %q is not <name>:<16 hex digits>", e)
		}
		out[i] = StageInfo{Name: name, Hash: hash}
	}
	return out, nil
}

// StagePartBytes is the most gzip bytes one GET_STAGE part carries (before
// base64): a response line stays under 2800 bytes (docs/PROTOCOL.md §2.4.8).
const StagePartBytes = 2048

// MaxStageParts bounds the number of parts of one stage file.
const MaxStageParts = 1024

// AppendStagePart appends the GET_STAGE response body "<parts>,<base64>".
func AppendStagePart(buf []byte, parts int, gz []byte) []byte {
	buf = strconv.AppendInt(buf, int64(parts), 10)
	buf = append(buf, ',')
	return base64.StdEncoding.AppendEncode(buf, gz)
}

// ParseStagePart parses a GET_STAGE response body: parts is 1..MaxStageParts
// in decimal, the data standard base64 (with padding) of 1..StagePartBytes
// bytes.
func ParseStagePart(body string) (parts int, gz []byte, err error) {
	p, b64, ok := strings.Cut(body, ",")
	if !ok {
		return 0, nil, syntaxErr("stage part is not <parts>,<base64>")
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > MaxStageParts || p[0] == '0' || p[0] == '+' {
		return 0, nil, syntaxErr("stage part count %q is not 1..%d", p, MaxStageParts)
	}
	if len(b64) == 0 || len(b64) > base64.StdEncoding.EncodedLen(StagePartBytes) {
		return 0, nil, syntaxErr("stage part data must be 1..%d bytes of base64", base64.StdEncoding.EncodedLen(StagePartBytes))
	}
	if strings.ContainsAny(b64, "\r\n") { // the decoder skips them; they are never in a body
		return 0, nil, syntaxErr("stage part data is not standard base64")
	}
	gz, err = base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil {
		return 0, nil, syntaxErr("stage part data is not standard base64: %v", err)
	}
	return n, gz, nil
}

// CodeAlphabet holds the 32 characters of lobby join codes (joincode.Alphabet).
const CodeAlphabet = joincode.Alphabet

// CodeLen is the length of a lobby join code (joincode.Len).
const CodeLen = joincode.Len

// ValidCode reports whether s is a canonical (upper-case) join code (joincode.Valid).
func ValidCode(s string) bool { return joincode.Valid(s) }

// DefaultName returns a player name for a player who gave none: "Pilot-" and
// 4 random upper-case hex digits (e.g. "Pilot-3F2A"), so that default names are
// distinct (docs/PROTOCOL.md §2.4.1).
func DefaultName() string {
	var b [2]byte
	rand.Read(b[:]) // crypto/rand.Read does not fail
	return fmt.Sprintf("Pilot-%02X%02X", b[0], b[1])
}

// MaxNameLen is the longest player name (ValidName).
const MaxNameLen = 16

// ValidName reports whether s is a valid player name: 1..MaxNameLen characters of
// [A-Za-z0-9_-] (decision, docs/PROTOCOL.md §2.4.1).
func ValidName(s string) bool {
	if len(s) < 1 || len(s) > MaxNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// trimCRLF checks the line terminator and the byte range of a whole line and
// returns it without CRLF.
func trimCRLF(line []byte) ([]byte, error) {
	if len(line) > MaxLine {
		return nil, ErrLineTooLong
	}
	n := len(line)
	if n == 0 || line[n-1] != '\n' {
		return nil, syntaxErr("line does not end with CRLF")
	}
	if n < 2 || line[n-2] != '\r' {
		return nil, syntaxErr("bare LF: lines must end with CRLF")
	}
	body := line[:n-2]
	for i, c := range body {
		if c < 0x20 || c > 0x7e {
			return nil, syntaxErr("byte 0x%02x at offset %d is not printable ASCII", c, i)
		}
	}
	return body, nil
}

func validCmdName(b []byte) bool {
	if len(b) == 0 || b[0] < 'A' || b[0] > 'Z' {
		return false
	}
	for _, c := range b {
		if !(c >= 'A' && c <= 'Z' || isDigit(c) || c == '_') {
			return false
		}
	}
	return true
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// MaxHostLen bounds the host field of START and SPECTATE (a DNS name's longest form).
const MaxHostLen = 253

// ValidHost reports whether s is a valid host field of START and SPECTATE (docs/PROTOCOL.md
// §2.5.1): an IPv4 or IPv6 address literal (no brackets, no zone), or a DNS name of at most 253
// bytes whose labels are 1..63 letters, digits and inner hyphens, the last not all digits (so
// that a number is never taken for a name).
func ValidHost(s string) bool {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Zone() == ""
	}
	if len(s) == 0 || len(s) > MaxHostLen {
		return false
	}
	labels := strings.Split(strings.TrimSuffix(s, "."), ".")
	for _, l := range labels {
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	return strings.Trim(last, "0123456789") != ""
}

// UpperCode is s with its ASCII letters upper-cased: lobby codes are case-insensitive (a
// client may send them in lower case; docs/PROTOCOL.md §2.4.3).
func UpperCode(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// LineReader splits a stream into lines of at most MaxLine bytes (LF included), for both ends
// of the lobby's connections. Unlike bufio.Reader it keeps a partial line across read errors
// such as an expired read deadline.
type LineReader struct {
	r          io.Reader
	buf        [MaxLine]byte
	start, end int
	err        error
}

// NewLineReader returns a LineReader reading r.
func NewLineReader(r io.Reader) *LineReader { return &LineReader{r: r} }

// ReadLine returns the next line, LF included (ErrLineTooLong past MaxLine bytes without
// one). The line aliases the internal buffer and is valid until the next call.
func (lr *LineReader) ReadLine() ([]byte, error) {
	for {
		if i := bytes.IndexByte(lr.buf[lr.start:lr.end], '\n'); i >= 0 {
			line := lr.buf[lr.start : lr.start+i+1]
			lr.start += i + 1
			return line, nil
		}
		if lr.end-lr.start >= MaxLine {
			return nil, ErrLineTooLong
		}
		if err := lr.err; err != nil {
			lr.err = nil
			return nil, err
		}
		if lr.start > 0 {
			lr.end = copy(lr.buf[:], lr.buf[lr.start:lr.end])
			lr.start = 0
		}
		n, err := lr.r.Read(lr.buf[lr.end:])
		lr.end += n
		lr.err = err
	}
}

// PasswordRule says what a private server's password may be (ValidPassword).
const PasswordRule = "1 to 64 printable ASCII characters, no space, ',' or ';'"

// ValidPassword reports whether s can be a private server's password, sent as an argument of
// AUTHENTICATE (docs/PROTOCOL.md §2.4.1): PasswordRule.
func ValidPassword(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == ',' || c == ';' {
			return false
		}
	}
	return true
}
