package lobby

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/scores"
)

// ErrClosed is returned by Client methods after Close.
var ErrClosed = errors.New("lobby: client closed")

// ErrProtocol wraps every error caused by a server line that breaks the
// protocol; the client closes the connection when it sees one.
var ErrProtocol = errors.New("lobby: protocol violation by server")

// ServerClosedError is the error of a connection the server closed after an
// unsolicited 500 line (a connection limit, too many commands, a line too
// long): Reason is that line's body.
type ServerClosedError struct{ Reason string }

func (e *ServerClosedError) Error() string { return "lobby: server closed the connection: " + e.Reason }

// Message is a CHAT or BROADCAST push (docs/PROTOCOL.md §2.5.5, §2.5.6): From is
// the sender's player name for a chat line and "" for a server broadcast; Text
// is decoded (UTF-8).
type Message struct {
	Broadcast bool
	From      string
	Text      string
}

// maxMessages bounds the messages kept until Messages is called.
const maxMessages = 64

// RequestTimeout bounds how long a Client request waits for its response;
// on expiry the connection is closed (responses could no longer be matched).
const RequestTimeout = 30 * time.Second

// ResponseError is a non-200 response: Code is 401 or 500 (seed 004 §2.2.1)
// and Reason the response body sent by the server.
type ResponseError struct {
	Code   int
	Reason string
}

func (e *ResponseError) Error() string {
	return "lobby: server answered " + strconv.Itoa(e.Code) + ": " + e.Reason
}

// StartInfo is the content of a START push (docs/PROTOCOL.md §2.5.1): the UDP
// port of the game instance, this player's session token (non-zero u32,
// carried in every UDP datagram header) and session key (answers CHALLENGE,
// §5.9; zero from a server whose push has no key). Stage is not in the push:
// it is the lobby's stage from the latest STAGE push received before it
// (§2.5.4), the stage the game plays; zero if the server sent none.
// Spectator is set when the push was SPECTATE (§2.5.7): the session watches
// the game without a ship. Code is the lobby's code (the latest MEMBERS push):
// with the slot of WELCOME and Key it is what a rejoin needs (Client.Rejoin).
type StartInfo struct {
	Port      int
	Token     uint32
	Stage     StageInfo
	Key       [16]byte
	Spectator bool
	Code      string
	// Host is where the game's UDP goes when the lobby handed it to another host (the push's
	// fourth field, docs/PROTOCOL.md §2.5.1); "" means the lobby's own host.
	Host string
}

// ErrBadStage wraps every error about stage data fetched with GET_STAGE that
// is not what its hash promises (not gzip, too large, hash mismatch).
var ErrBadStage = errors.New("lobby: bad stage data")

// maxQueued bounds the START/END pushes kept until WaitStart/WaitEnd.
const maxQueued = 8

// Client is a lobby connection (docs/PROTOCOL.md §2). One goroutine reads
// every line and routes responses (three-digit start) to the pending request
// and pushes (START, MEMBERS, END) to the client state; requests are
// serialized, one outstanding at a time. Methods are safe for concurrent use.
type Client struct {
	nc     net.Conn
	reqMu  sync.Mutex
	respCh chan Response // capacity 1: at most one request is pending
	done   chan struct{} // closed when the reader goroutine ends

	mu        sync.Mutex
	server    string    // server UUID learnt from its first line
	id        uuid.UUID // from Authenticate
	name      string    // given to Authenticate
	pending   string    // command awaiting its response, "" if none
	code      string    // latest MEMBERS push
	names     []string
	stage     StageInfo        // latest STAGE push...
	stageCode string           // ...and the lobby code it was for
	level     rules.Difficulty // latest DIFFICULTY push for lobby stageCode (Normal without one)
	run       []StageInfo      // latest RUN push for lobby stageCode (nil: one stage)
	section   int              // latest SECTION push for lobby stageCode (0: the start)
	infinite  bool             // latest LIVES push for lobby stageCode said infinite
	closing   *Closing         // the CLOSING push (nil: none yet)
	closingCh chan struct{}    // closed at the CLOSING push
	starts    []StartInfo
	ends      []uint8
	gameID    uuid.UUID     // latest GAME_ID push
	msgs      []Message     // CHAT and BROADCAST pushes not yet taken by Messages
	notice    string        // body of the latest unsolicited non-200 response
	notify    chan struct{} // closed and replaced on every push and on failure
	err       error         // why the connection is unusable; nil while it works
	kaDone    chan struct{} // closed when the keep-alive goroutine ends
}

// KeepAlive is how often an authenticated Client sends GET_LOBBIES so that the server's idle
// timeout (5 minutes by default, docs/PROTOCOL.md §2) never closes a player waiting in a lobby.
var KeepAlive = time.Minute

func (c *Client) keepAlive() {
	defer close(c.kaDone)
	t := time.NewTicker(KeepAlive)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			c.mu.Lock()
			authed := c.id != uuid.Nil && c.err == nil
			c.mu.Unlock()
			if authed {
				_, _ = c.Lobbies()
			}
		}
	}
}

// Dial connects to a lobby server at addr ("host:port"); ctx bounds the dial only. In a
// browser (GOOS=js) there is no TCP: it dials the WebSocket lobby (DialWebSocket) of the
// page's own origin, or addr when it is a ws:// or wss:// URL.
func Dial(ctx context.Context, addr string) (*Client, error) {
	if dialWeb {
		return DialWebSocket(ctx, webAddr(addr))
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return NewClient(nc), nil
}

// NewClient runs the lobby protocol over an open connection (a load generator dials from a
// chosen source address); Close closes nc.
func NewClient(nc net.Conn) *Client {
	c := &Client{
		nc:     nc,
		respCh: make(chan Response, 1),
		done:   make(chan struct{}),

		closingCh: make(chan struct{}),
		notify:    make(chan struct{}),
	}
	c.kaDone = make(chan struct{})
	go c.readLoop()
	go c.keepAlive()
	return c
}

// Authenticate sends `AUTHENTICATE ;<name>` and returns the user UUID the
// server assigned. name is 1..16 chars of [A-Za-z0-9_-], or "" for the
// server's default (DefaultName: "Pilot-XXXX"; Name then returns "").
func (c *Client) Authenticate(name string) (uuid.UUID, error) {
	return c.AuthenticatePrivate(name, "")
}

// AuthenticatePrivate is Authenticate on a private server: `AUTHENTICATE ;<name>,<password>`
// (docs/PROTOCOL.md §2.4.1); an empty password sends none, as Authenticate.
func (c *Client) AuthenticatePrivate(name, password string) (uuid.UUID, error) {
	if name != "" && !ValidName(name) {
		return uuid.Nil, fmt.Errorf("lobby: invalid name %q: 1 to 16 characters of A-Z a-z 0-9 _ -", name)
	}
	if password != "" && !ValidPassword(password) {
		return uuid.Nil, fmt.Errorf("lobby: invalid password: %s", PasswordRule)
	}
	var args []string
	switch {
	case password != "":
		args = []string{name, password}
	case name != "":
		args = []string{name}
	}
	r, err := c.request(CmdAuthenticate, args...)
	if err != nil {
		return uuid.Nil, err
	}
	id, err := uuid.Parse(r.Body)
	if err != nil {
		return uuid.Nil, c.fail(fmt.Errorf("%w: AUTHENTICATE body %q is not a uuid", ErrProtocol, r.Body))
	}
	c.mu.Lock()
	c.id = id
	c.name = name
	c.mu.Unlock()
	return id, nil
}

// Lobbies sends GET_LOBBIES and returns the server's lobby list, oldest
// first. A list too long for one line comes in pages (docs/PROTOCOL.md
// §2.4.2): while a response is within MaxLobbyEntry bytes of the line limit it
// asks for the next page, skipping the lobbies it has.
func (c *Client) Lobbies() ([]LobbyInfo, error) {
	var all []LobbyInfo
	for page := 0; ; page++ {
		var args []string
		if page > 0 {
			args = []string{strconv.Itoa(len(all))}
		}
		r, err := c.request(CmdGetLobbies, args...)
		if err != nil {
			return nil, err
		}
		ls, err := ParseLobbies(r.Body)
		if err != nil {
			return nil, c.fail(fmt.Errorf("%w: %v", ErrProtocol, err))
		}
		all = append(all, ls...)
		if len(ls) == 0 || 4+len(r.Header)+1+len(r.Body)+2+MaxLobbyEntry <= MaxLine || page >= 1000 {
			return all, nil
		}
	}
}

// Messages returns the CHAT and BROADCAST pushes received since the last call
// (at most the latest 64), oldest first.
func (c *Client) Messages() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.msgs
	c.msgs = nil
	return m
}

// WaitMessage waits until a CHAT or BROADCAST push not yet returned by
// Messages or WaitMessage arrives, and returns it.
func (c *Client) WaitMessage(ctx context.Context) (Message, error) {
	for {
		c.mu.Lock()
		if len(c.msgs) > 0 {
			m := c.msgs[0]
			c.msgs = c.msgs[1:]
			c.mu.Unlock()
			return m, nil
		}
		err, ch := c.err, c.notify
		c.mu.Unlock()
		if err != nil {
			return Message{}, err
		}
		select {
		case <-ctx.Done():
			return Message{}, ctx.Err()
		case <-ch:
		}
	}
}

// Chat sends CHAT with text (UTF-8, see CheckText) to the members of the
// client's lobby; every member, this client included, gets it as a Message.
func (c *Client) Chat(text string) error {
	if err := CheckText(text); err != nil {
		return err
	}
	_, err := c.request(CmdChat, TextArgs(EncodeText(text))...)
	return err
}

// Name returns the player name given to Authenticate ("" before).
func (c *Client) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// Join sends JOIN_LOBBY and returns the code of the lobby joined; code ""
// creates a new lobby. Pending START/END pushes of a previous lobby are
// discarded.
func (c *Client) Join(code string) (string, error) {
	var args []string
	if code != "" {
		args = []string{code}
	}
	r, err := c.request(CmdJoinLobby, args...)
	if err != nil {
		return "", err
	}
	return r.Body, nil
}

// Create sends `JOIN_LOBBY <uuid>;,<stage>` and returns the code of the new
// lobby, which plays the named stage; stage "" creates a lobby with the
// server's default stage (as Join("")).
func (c *Client) Create(stage string) (string, error) {
	if stage == "" {
		return c.Join("")
	}
	r, err := c.request(CmdJoinLobby, "", stage)
	if err != nil {
		return "", err
	}
	return r.Body, nil
}

// CreatePrivate sends `JOIN_LOBBY <uuid>;,<stage>,<password>`: it creates a private lobby
// (not listed; joined with JoinPrivate and the password; docs/PROTOCOL.md §2.4.3) that plays
// stage ("": the server's default) and returns its code.
func (c *Client) CreatePrivate(stage, password string) (string, error) {
	if !ValidPassword(password) {
		return "", fmt.Errorf("lobby: invalid password: %s", PasswordRule)
	}
	r, err := c.request(CmdJoinLobby, "", stage, password)
	if err != nil {
		return "", err
	}
	return r.Body, nil
}

// JoinPrivate sends `JOIN_LOBBY <uuid>;<code>,,<password>`: Join for a private lobby.
func (c *Client) JoinPrivate(code, password string) (string, error) {
	if !ValidPassword(password) {
		return "", fmt.Errorf("lobby: invalid password: %s", PasswordRule)
	}
	r, err := c.request(CmdJoinLobby, code, "", password)
	if err != nil {
		return "", err
	}
	return r.Body, nil
}

// SetStage sends SET_STAGE: the lobby's owner changes the stage of the waiting
// lobby; every member then gets a STAGE push (see Stage).
func (c *Client) SetStage(name string) error {
	_, err := c.request(CmdSetStage, name)
	return err
}

// Stages sends GET_STAGES and returns the stages the server offers, its
// default first.
func (c *Client) Stages() ([]StageInfo, error) {
	r, err := c.request(CmdGetStages)
	if err != nil {
		return nil, err
	}
	ss, err := ParseStages(r.Body)
	if err != nil {
		return nil, c.fail(fmt.Errorf("%w: %v", ErrProtocol, err))
	}
	return ss, nil
}

// SetDifficulty sends SET_DIFFICULTY: the lobby's owner chooses the level of the waiting lobby;
// every member then gets a DIFFICULTY push (see Difficulty).
func (c *Client) SetDifficulty(d rules.Difficulty) error {
	_, err := c.request(CmdSetDifficulty, d.String())
	return err
}

// Difficulty returns the level of the lobby the client is in: the latest DIFFICULTY push for
// it, Normal without one.
func (c *Client) Difficulty() rules.Difficulty {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.level
}

// SetSection sends SET_SECTION: the owner of a waiting solo lobby chooses the section of its
// stage the game starts at (0: the start; Script.PracticeBoss: the boss); every member then gets a
// SECTION push (see Section).
func (c *Client) SetSection(n int) error {
	_, err := c.request(CmdSetSection, strconv.Itoa(n))
	return err
}

// Section returns the practice section of the lobby the client is in: the latest SECTION push
// for it, 0 (the stage's start) without one.
func (c *Client) Section() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.section
}

// SetLives sends SET_LIVES (docs/PROTOCOL.md §2.4.17): the owner of a waiting solo lobby
// chooses infinite lives (the practice trainer) or the level's. The LIVES push that follows a
// change sets InfiniteLives.
func (c *Client) SetLives(infinite bool) error {
	lives := LivesLevel
	if infinite {
		lives = LivesInfinite
	}
	_, err := c.request(CmdSetLives, lives)
	return err
}

// InfiniteLives reports whether the lobby the client is in plays with infinite lives: its
// latest LIVES push (false without one). A running lobby's lives do not change, so after a
// START push it says what that game plays.
func (c *Client) InfiniteLives() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.infinite
}

// Closing returns the server's CLOSING push (docs/PROTOCOL.md §2.5.13): why it closes, the time
// its games had left, the operator's last broadcast; ok false before one came.
func (c *Client) Closing() (cl Closing, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing == nil {
		return Closing{}, false
	}
	return *c.closing, true
}

// ClosingNotice is closed when the server's CLOSING push arrives (Closing then says what it said).
func (c *Client) ClosingNotice() <-chan struct{} { return c.closingCh }

// Retry sends RETRY (docs/PROTOCOL.md §2.4.18): the owner of a solo lobby plays its game again.
// The game running ends (END), then a START push comes for the next one (WaitStart).
func (c *Client) Retry() error {
	_, err := c.request(CmdRetry)
	return err
}

// Run returns the arcade run of the lobby the client is in: the stages of the latest RUN push
// for it, nil when it plays one stage (docs/PROTOCOL.md §2.5.10). A running lobby's run does not
// change (SET_STAGE is refused), so after a START push Run is the run of that game.
func (c *Client) Run() []StageInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.run
}

// Stage returns the latest STAGE push: the lobby code and the stage it plays
// (name and hash). Both are zero outside a lobby.
func (c *Client) Stage() (code string, st StageInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stageCode, c.stage
}

// FetchStage downloads the stage file whose StageHash is hash with GET_STAGE
// (parts 0..parts-1, docs/PROTOCOL.md §2.4.8), gunzips it (at most
// stagefile.MaxBytes) and checks its hash. A malformed response body is a
// protocol violation (the connection is closed); data that does not match the
// hash is an ErrBadStage error.
func (c *Client) FetchStage(hash string) ([]byte, error) {
	if !ValidStageHash(hash) {
		return nil, fmt.Errorf("lobby: stage hash %q is not %d lowercase hex digits", hash, stagefile.HashLen)
	}
	var gz []byte
	parts := 1
	var pace time.Duration
	for i := 0; i < parts; i++ {
		r, err := c.requestPart(&pace, CmdGetStage, hash, strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		n, data, err := ParseStagePart(r.Body)
		if err != nil {
			return nil, c.fail(fmt.Errorf("%w: GET_STAGE %s part %d: %v", ErrProtocol, hash, i, err))
		}
		if i == 0 {
			parts = n
		} else if n != parts {
			return nil, fmt.Errorf("%w %s: part %d says %d parts, part 0 said %d", ErrBadStage, hash, i, n, parts)
		}
		gz = append(gz, data...)
	}
	return DecodeStage(hash, gz)
}

// requestPart requests one part of a download (GET_STAGE, GET_REPLAY). Every part is a line of
// the connection's command rate (docs/PROTOCOL.md §2.3): when the server refuses one for the rate,
// requestPart waits a line's worth of that rate and asks again, and the download's later parts
// (pace, zero at its start) go out at that rate, so that a download of more parts than the burst
// gets one refusal, not one per part.
func (c *Client) requestPart(pace *time.Duration, name string, args ...string) (Response, error) {
	for tries := 0; ; tries++ {
		if *pace > 0 {
			select {
			case <-time.After(*pace):
			case <-c.done:
			}
		}
		r, err := c.request(name, args...)
		var re *ResponseError
		if tries < 3 && errors.As(err, &re) && re.Code == CodeWrongRequest {
			if rate, ok := ParseRateRefusal(re.Reason); ok {
				*pace = time.Duration(float64(time.Second)/rate) + time.Millisecond
				continue
			}
		}
		return r, err
	}
}

// DecodeStage gunzips the gzip stream gz of a stage file (at most
// stagefile.MaxBytes once decompressed) and checks that its StageHash is
// hash; errors wrap ErrBadStage.
func DecodeStage(hash string, gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("%w %s: not gzip data: %v", ErrBadStage, hash, err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, stagefile.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w %s: corrupt gzip data: %v", ErrBadStage, hash, err)
	}
	if len(data) > stagefile.MaxBytes {
		return nil, fmt.Errorf("%w %s: more than %d bytes once decompressed", ErrBadStage, hash, stagefile.MaxBytes)
	}
	if got := stagefile.Hash(data); got != hash {
		return nil, fmt.Errorf("%w: the data fetched for %s hashes to %s", ErrBadStage, hash, got)
	}
	return data, nil
}

// ResolveStage returns the stage name whose file hashes to hash, checked with parse (the
// simulation's game.ParseScript, which a client that plays the stage passes): the embedded
// stage of that name when its hash matches (no network), else the file fetched from the
// server (FetchStage); data parse refuses is refused with ErrBadStage.
func (c *Client) ResolveStage(name, hash string, parse stagefile.Parser) (*stagefile.File, error) {
	if f, err := stagefile.Embedded(name, parse); err == nil && f.Hash == hash {
		return f, nil
	}
	data, err := c.FetchStage(hash)
	if err != nil {
		return nil, err
	}
	f, err := stagefile.New(name, "stage "+name+" ("+hash+") from the server", data, parse)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadStage, err)
	}
	return f, nil
}

// Start asks the server to start the lobby's game; the START push follows
// (see WaitStart).
func (c *Client) Start() error {
	_, err := c.request(CmdStart)
	return err
}

// Leave sends LEAVE; Members is empty afterwards and pending START/END
// pushes are discarded.
func (c *Client) Leave() error {
	_, err := c.request(CmdLeave)
	return err
}

// WaitStart returns the oldest START push not yet returned, waiting for one
// until ctx is done or the connection fails.
func (c *Client) WaitStart(ctx context.Context) (StartInfo, error) {
	for {
		c.mu.Lock()
		if len(c.starts) > 0 {
			s := c.starts[0]
			c.starts = c.starts[1:]
			c.mu.Unlock()
			return s, nil
		}
		err, ch := c.err, c.notify
		c.mu.Unlock()
		if err != nil {
			return StartInfo{}, err
		}
		select {
		case <-ctx.Done():
			return StartInfo{}, ctx.Err()
		case <-ch:
		}
	}
}

// WaitEnd returns the result of the oldest END push not yet returned (0
// defeat, 1 victory, 2 aborted), waiting until ctx is done or the connection
// fails.
func (c *Client) WaitEnd(ctx context.Context) (uint8, error) {
	for {
		c.mu.Lock()
		if len(c.ends) > 0 {
			r := c.ends[0]
			c.ends = c.ends[1:]
			c.mu.Unlock()
			return r, nil
		}
		err, ch := c.err, c.notify
		c.mu.Unlock()
		if err != nil {
			return 0, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-ch:
		}
	}
}

// LastGameID is the id of the latest game the server said it keeps (the GAME_ID push, sent just
// before END: after WaitEnd it names the game that ended), uuid.Nil if none: FetchReplay takes
// it. A server that keeps no hall of fame (-db off) sends no GAME_ID.
func (c *Client) LastGameID() uuid.UUID {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gameID
}

// ScoresQuery selects one page of the hall of fame (GET_SCORES, docs/PROTOCOL.md §2.4.12).
type ScoresQuery struct {
	Stage   string // "" every stage
	Players int    // 0 every player count, else 1..4
	Page    int    // 0 first; scores.PageSize games a page
	Today   bool   // games of the server's current UTC day only (else all time)
	Name    string // "" every player; else the games with a slot of that name (a player's own best)
}

// args is the GET_SCORES arguments of q, trailing empty ones left out.
func (q ScoresQuery) args() []string {
	a := []string{q.Stage, "", "", "", q.Name}
	if q.Players > 0 {
		a[1] = strconv.Itoa(q.Players)
	}
	if q.Page > 0 {
		a[2] = strconv.Itoa(q.Page)
	}
	if q.Today {
		a[3] = "today"
	}
	for len(a) > 0 && a[len(a)-1] == "" {
		a = a[:len(a)-1]
	}
	return a
}

// Scores sends GET_SCORES: one page of the hall of fame, the best first (a page shorter than
// scores.PageSize is the last).
func (c *Client) Scores(q ScoresQuery) ([]GameEntry, error) {
	return c.games(CmdGetScores, q.args()...)
}

// RecentGames sends GET_GAMES: one page of the finished games, the newest first (of player name
// only, unless "").
func (c *Client) RecentGames(page int, name string) ([]GameEntry, error) {
	var a []string
	switch {
	case name != "":
		a = []string{strconv.Itoa(page), name}
	case page > 0:
		a = []string{strconv.Itoa(page)}
	}
	return c.games(CmdGetGames, a...)
}

func (c *Client) games(cmd string, args ...string) ([]GameEntry, error) {
	r, err := c.request(cmd, args...)
	if err != nil {
		return nil, err
	}
	es, err := ParseGameEntries(r.Body)
	if err != nil {
		return nil, c.fail(fmt.Errorf("%w: %s: %v", ErrProtocol, cmd, err))
	}
	return es, nil
}

// FetchReplay downloads the replay of game id with GET_REPLAY (parts 0..parts-1, docs/PROTOCOL.md
// §2.4.14). A malformed body is a protocol violation (the connection is closed); a server that
// has no such replay answers 500 (a *ResponseError).
func (c *Client) FetchReplay(id uuid.UUID) ([]byte, error) {
	var out []byte
	parts := 1
	var pace time.Duration
	for i := 0; i < parts; i++ {
		r, err := c.requestPart(&pace, CmdGetReplay, id.String(), strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		n, data, err := ParseReplayPart(r.Body)
		if err != nil {
			return nil, c.fail(fmt.Errorf("%w: GET_REPLAY %s part %d: %v", ErrProtocol, id, i, err))
		}
		if i == 0 {
			parts = n
		} else if n != parts {
			return nil, fmt.Errorf("lobby: replay %s: part %d says %d parts, part 0 said %d", id, i, n, parts)
		}
		if i < parts-1 && len(data) != scores.ReplayPartBytes {
			return nil, fmt.Errorf("lobby: replay %s: part %d has %d bytes, want %d", id, i, len(data), scores.ReplayPartBytes)
		}
		out = append(out, data...)
	}
	return out, nil
}

// Members returns the latest MEMBERS push: the lobby code and the member
// names in join order (first = owner). Both are empty outside a lobby.
func (c *Client) Members() (code string, names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.code, append([]string(nil), c.names...)
}

// Done is closed when the connection has ended: the server closed or reset it (a dead server's
// host resets it at once), a request timed out, a line broke the protocol, or Close. Err says
// why. A game client uses it to notice a dead server before its UDP session times out.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the connection ended (ErrClosed after Close), nil while it works.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection and waits for the reader goroutine. Later
// calls return nil; pending and later requests fail with ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.err == nil {
		c.err = ErrClosed
		c.wakeLocked()
	}
	c.mu.Unlock()
	c.nc.Close()
	<-c.done
	<-c.kaDone
	return nil
}

func (c *Client) wakeLocked() {
	close(c.notify)
	c.notify = make(chan struct{})
}

// fail records err as the connection's error (unless one is already set),
// closes the connection and returns the recorded error.
func (c *Client) fail(err error) error {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
		c.wakeLocked()
	}
	err = c.err
	c.mu.Unlock()
	c.nc.Close()
	return err
}

func (c *Client) request(name string, args ...string) (Response, error) {
	c.reqMu.Lock()
	defer c.reqMu.Unlock()
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return Response{}, err
	}
	header := ""
	if name != CmdAuthenticate && c.id != uuid.Nil {
		header = c.id.String()
	}
	line, err := AppendCommand(nil, Command{Name: name, Header: header, Args: args})
	if err != nil {
		c.mu.Unlock()
		return Response{}, fmt.Errorf("lobby: %s not sent: %w", name, err)
	}
	c.pending = name
	c.mu.Unlock()

	c.nc.SetWriteDeadline(time.Now().Add(RequestTimeout))
	if _, err := c.nc.Write(line); err != nil {
		return Response{}, c.fail(err)
	}
	t := time.NewTimer(RequestTimeout)
	defer t.Stop()
	var r Response
	select {
	case r = <-c.respCh:
	case <-c.done:
		select {
		case r = <-c.respCh: // the response arrived just before the connection ended
		default:
			c.mu.Lock()
			err := c.err
			c.mu.Unlock()
			return Response{}, err
		}
	case <-t.C:
		return Response{}, c.fail(fmt.Errorf("lobby: no response to %s within %v", name, RequestTimeout))
	}
	if r.Code != CodeOK {
		return r, &ResponseError{Code: r.Code, Reason: r.Body}
	}
	return r, nil
}

func (c *Client) readLoop() {
	defer close(c.done)
	lr := NewLineReader(c.nc)
	for {
		line, err := lr.ReadLine()
		if err == nil {
			err = c.dispatch(line)
		} else {
			c.mu.Lock()
			if c.notice != "" && !errors.Is(err, ErrLineTooLong) {
				err = &ServerClosedError{Reason: c.notice}
			}
			c.mu.Unlock()
		}
		if err != nil {
			c.fail(err)
			return
		}
	}
}

// checkServer pins the server UUID to the one of its first line.
func (c *Client) checkServerLocked(h string) error {
	if c.server == "" {
		c.server = h
		return nil
	}
	if h != c.server {
		return fmt.Errorf("%w: server uuid changed from %s to %q", ErrProtocol, c.server, h)
	}
	return nil
}

func (c *Client) dispatch(line []byte) error {
	if IsResponse(line) {
		r, err := ParseResponse(line)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrProtocol, err)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if err := c.checkServerLocked(r.Header); err != nil {
			return err
		}
		p := c.pending
		c.pending = ""
		if p == "" {
			// Unsolicited: the 500 sent before the server closes the connection.
			c.notice = r.Body
			return nil
		}
		if r.Code == CodeOK && (p == CmdJoinLobby || p == CmdLeave || p == CmdRejoin || p == CmdResume) {
			// Pushes after this response belong to the new membership.
			c.starts, c.ends = nil, nil
			if p == CmdLeave {
				c.code, c.names = "", nil
			}
			if p == CmdLeave || r.Body != c.stageCode {
				c.stage, c.stageCode = StageInfo{}, ""
			}
		}
		c.respCh <- r
		return nil
	}
	cmd, err := ParseCommand(line)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrProtocol, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkServerLocked(cmd.Header); err != nil {
		return err
	}
	handle, ok := pushes[cmd.Name]
	if !ok {
		return nil // unknown push: ignored (forward compatibility)
	}
	if err := handle(c, cmd, line); err != nil {
		return err
	}
	c.wakeLocked()
	return nil
}

// pushes are the server pushes the Client follows (docs/PROTOCOL.md §2.5), each handled under
// c.mu; adding one is a method below and one line here.
var pushes = map[string]func(c *Client, cmd Command, line []byte) error{
	PushStart:      (*Client).onStart,
	PushSpectate:   (*Client).onStart,
	PushMembers:    (*Client).onMembers,
	PushStage:      (*Client).onStage,
	PushDifficulty: (*Client).onDifficulty,
	PushRun:        (*Client).onRun,
	PushSection:    (*Client).onSection,
	PushChat:       (*Client).onChat,
	PushBroadcast:  (*Client).onChat,
	PushEnd:        (*Client).onEnd,
	PushGameID:     (*Client).onGameID,
	PushLives:      (*Client).onLives,
	PushClosing:    (*Client).onClosing,
}

// onStart handles a START or SPECTATE push: the game to play or watch.
func (c *Client) onStart(cmd Command, line []byte) error {
	if len(cmd.Args) < 2 || len(cmd.Args) > 4 {
		return fmt.Errorf("%w: %s push needs port,token,key[,host]", ErrProtocol, cmd.Name)
	}
	port, err1 := strconv.ParseUint(cmd.Args[0], 10, 16)
	tok, err2 := strconv.ParseUint(cmd.Args[1], 10, 32)
	if err1 != nil || err2 != nil || port == 0 || tok == 0 {
		return fmt.Errorf("%w: bad START push %q", ErrProtocol, line)
	}
	info := StartInfo{Port: int(port), Token: uint32(tok), Stage: c.stage, Spectator: cmd.Name == PushSpectate, Code: c.code}
	if len(cmd.Args) == 4 { // a game on another host (§2.5.1)
		if !ValidHost(cmd.Args[3]) {
			return fmt.Errorf("%w: bad START push host %q", ErrProtocol, line)
		}
		info.Host = cmd.Args[3]
	}
	if len(cmd.Args) >= 3 { // a server older than the key sends two fields (§2.5.1)
		if !ValidSessionKey(cmd.Args[2]) {
			return fmt.Errorf("%w: bad START push key %q", ErrProtocol, line)
		}
		_, _ = hex.Decode(info.Key[:], []byte(cmd.Args[2]))
	}
	c.starts = appendBounded(c.starts, info)
	c.ends = nil // an END before this START is an earlier game's (RETRY's: END, then START)
	return nil
}

// onMembers handles a MEMBERS push: the lobby and its members.
func (c *Client) onMembers(cmd Command, line []byte) error {
	if len(cmd.Args) < 1 {
		return fmt.Errorf("%w: MEMBERS push without lobby code", ErrProtocol)
	}
	c.code, c.names = cmd.Args[0], append([]string(nil), cmd.Args[1:]...)
	return nil
}

// onStage handles a STAGE push: the lobby's stage (another lobby: its settings start over).
func (c *Client) onStage(cmd Command, line []byte) error {
	if len(cmd.Args) != 3 || !ValidCode(cmd.Args[0]) || !stagefile.ValidName(cmd.Args[1]) || !ValidStageHash(cmd.Args[2]) {
		return fmt.Errorf("%w: bad STAGE push %q", ErrProtocol, line)
	}
	if cmd.Args[0] != c.stageCode {
		c.level = rules.DifficultyNormal // another lobby: Normal until a DIFFICULTY push says otherwise
		c.run = nil                      // and one stage until a RUN push
		c.section = 0                    // from its start until a SECTION push
		c.infinite = false               // with the level's lives until a LIVES push
	}
	c.stageCode, c.stage = cmd.Args[0], StageInfo{Name: cmd.Args[1], Hash: cmd.Args[2]}
	return nil
}

// onDifficulty handles a DIFFICULTY push.
func (c *Client) onDifficulty(cmd Command, line []byte) error {
	if len(cmd.Args) != 2 || !ValidCode(cmd.Args[0]) {
		return fmt.Errorf("%w: bad DIFFICULTY push %q", ErrProtocol, line)
	}
	d, err := rules.ParseDifficulty(cmd.Args[1])
	if err == nil && cmd.Args[0] == c.stageCode { // a level this client does not know: ignored
		c.level = d
	}
	return nil
}

// onRun handles a RUN push: the stages of the lobby's arcade run.
func (c *Client) onRun(cmd Command, line []byte) error {
	if len(cmd.Args) < 1 || !ValidCode(cmd.Args[0]) {
		return fmt.Errorf("%w: bad RUN push %q", ErrProtocol, line)
	}
	run, err := ParseRun(cmd.Args[1:])
	if err != nil {
		return fmt.Errorf("%w: RUN push: %v", ErrProtocol, err)
	}
	if cmd.Args[0] == c.stageCode {
		c.run = run
	}
	return nil
}

// onSection handles a SECTION push: the practice section.
func (c *Client) onSection(cmd Command, line []byte) error {
	if len(cmd.Args) != 2 || !ValidCode(cmd.Args[0]) {
		return fmt.Errorf("%w: bad SECTION push %q", ErrProtocol, line)
	}
	n, err := strconv.Atoi(cmd.Args[1])
	if err != nil || n < 0 || n > stagefile.MaxSections {
		return fmt.Errorf("%w: bad SECTION push %q", ErrProtocol, line)
	}
	if cmd.Args[0] == c.stageCode {
		c.section = n
	}
	return nil
}

// onLives handles a LIVES push: the practice trainer's infinite lives, or the level's.
func (c *Client) onLives(cmd Command, line []byte) error {
	if len(cmd.Args) != 2 || !ValidCode(cmd.Args[0]) || (cmd.Args[1] != LivesLevel && cmd.Args[1] != LivesInfinite) {
		return fmt.Errorf("%w: bad LIVES push %q", ErrProtocol, line)
	}
	if cmd.Args[0] == c.stageCode {
		c.infinite = cmd.Args[1] == LivesInfinite
	}
	return nil
}

// onClosing handles a CLOSING push: why the server closes, kept for Closing.
func (c *Client) onClosing(cmd Command, line []byte) error {
	cl, err := parseClosing(cmd.Args)
	if err != nil {
		return fmt.Errorf("%w: bad CLOSING push %q: %v", ErrProtocol, line, err)
	}
	if c.closing == nil {
		close(c.closingCh)
	}
	c.closing = &cl
	return nil
}

// onChat handles a CHAT or BROADCAST push.
func (c *Client) onChat(cmd Command, line []byte) error {
	m := Message{Broadcast: cmd.Name == PushBroadcast}
	wire := strings.Join(cmd.Args, ",")
	if !m.Broadcast {
		from, rest, ok := strings.Cut(wire, ",")
		if !ok || !ValidName(from) {
			return fmt.Errorf("%w: bad CHAT push %q", ErrProtocol, line)
		}
		m.From, wire = from, rest
	}
	text, err := DecodeText(wire)
	if err != nil {
		return fmt.Errorf("%w: %s push: %v", ErrProtocol, cmd.Name, err)
	}
	m.Text = text
	c.msgs = append(c.msgs, m)
	if len(c.msgs) > maxMessages {
		c.msgs = c.msgs[len(c.msgs)-maxMessages:]
	}
	return nil
}

// onEnd handles an END push: the game's result.
func (c *Client) onEnd(cmd Command, line []byte) error {
	var err error
	var res uint64
	if len(cmd.Args) >= 1 { // fields after the result: a later extension, ignored
		res, err = strconv.ParseUint(cmd.Args[0], 10, 8)
	}
	if len(cmd.Args) < 1 || err != nil {
		return fmt.Errorf("%w: bad END push %q", ErrProtocol, line)
	}
	c.ends = appendBounded(c.ends, uint8(res))
	return nil
}

// onGameID handles a GAME_ID push: the id the hall of fame keeps the game under.
func (c *Client) onGameID(cmd Command, line []byte) error {
	if len(cmd.Args) < 1 {
		return fmt.Errorf("%w: bad GAME_ID push %q", ErrProtocol, line)
	}
	id, err := uuid.Parse(cmd.Args[0])
	if err != nil || id.String() != cmd.Args[0] {
		return fmt.Errorf("%w: bad GAME_ID push %q", ErrProtocol, line)
	}
	c.gameID = id
	return nil
}

func appendBounded[T any](q []T, v T) []T {
	if len(q) >= maxQueued {
		q = q[1:]
	}
	return append(q, v)
}

// Rejoin sends REJOIN: this client takes back slot of the game running in lobby code, whose
// session was lost, proving it holds key, the session key of the START push that gave it the
// slot (RejoinProof; the key itself is not sent). On success a START push with a new token and
// key follows (WaitStart), and the client is a member of the lobby again.
func (c *Client) Rejoin(code string, slot int, key [16]byte) error {
	c.mu.Lock()
	id := c.id
	c.mu.Unlock()
	code = UpperCode(code)
	_, err := c.request(CmdRejoin, code, strconv.Itoa(slot), RejoinProof(key, code, slot, id))
	return err
}

// Resume sends RESUME (docs/PROTOCOL.md §2.4.20): this client, connected again to the lobby
// (its lobby connection was lost, or the lobby restarted) while its game goes on, becomes a
// member of lobby code again, in slot, proving it holds key, the session key of the START
// push that gave it the slot (ResumeProof; the key itself is not sent). Unlike Rejoin it gets
// no new token and leaves the game session alone: MEMBERS, CHAT and the game's END reach this
// client again (WaitEnd).
func (c *Client) Resume(code string, slot int, key [16]byte) error {
	c.mu.Lock()
	id := c.id
	c.mu.Unlock()
	code = UpperCode(code)
	_, err := c.request(CmdResume, code, strconv.Itoa(slot), ResumeProof(key, code, slot, id))
	return err
}
