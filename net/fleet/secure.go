package fleet

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// The control channel's handshake and framing (docs/CONTROL.md §2, §3). Every size and label
// is declared here once.
const (
	// Magic starts the host's and the lobby's first message: "RTYC".
	Magic = "RTYC"
	// Version is the control protocol's version (docs/CONTROL.md).
	Version = 1
	// NonceSize is the size of each side's handshake nonce (crypto/rand).
	NonceSize = 16
	// ProofSize is the size of a handshake proof (HMAC-SHA256).
	ProofSize = sha256.Size
	// HostHelloSize, LobbyHelloSize and HostProofSize are the handshake messages' sizes.
	HostHelloSize  = len(Magic) + 1 + NonceSize
	LobbyHelloSize = len(Magic) + 1 + NonceSize + ProofSize
	HostProofSize  = ProofSize
	// MinSecret is the shortest control secret accepted (RTYPE_CONTROL_SECRET).
	MinSecret = 16
	// MaxFrame bounds the plaintext of one frame (one JSON message).
	MaxFrame = 64 << 10
	// TagSize is the AES-GCM tag that follows each frame's ciphertext.
	TagSize = 16
	// HandshakeTimeout bounds the whole handshake on either side.
	HandshakeTimeout = 5 * time.Second
)

// The HMAC labels (domain separation: a proof of one side is never valid as the other's, nor
// as a key).
const (
	labelLobby  = "rtype control v1 lobby"
	labelHost   = "rtype control v1 host"
	labelKeyL2H = "rtype control v1 key lobby->host"
	labelKeyH2L = "rtype control v1 key host->lobby"
)

// ErrAuth is the error of a handshake whose peer does not prove the secret.
var ErrAuth = errors.New("fleet: control peer failed authentication (wrong RTYPE_CONTROL_SECRET?)")

// CheckSecret refuses a secret too short to be one.
func CheckSecret(secret []byte) error {
	if len(secret) < MinSecret {
		return fmt.Errorf("fleet: the control secret (RTYPE_CONTROL_SECRET) must be at least %d bytes, got %d", MinSecret, len(secret))
	}
	return nil
}

func mac(secret []byte, label string, nh, nl []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	m.Write(nh)
	m.Write(nl)
	return m.Sum(nil)
}

// LobbyProof is the lobby's proof of the secret: HMAC-SHA256(secret, "rtype control v1 lobby"
// || host nonce || lobby nonce).
func LobbyProof(secret, nh, nl []byte) []byte { return mac(secret, labelLobby, nh, nl) }

// HostProof is the host's proof: HMAC-SHA256(secret, "rtype control v1 host" || host nonce ||
// lobby nonce).
func HostProof(secret, nh, nl []byte) []byte { return mac(secret, labelHost, nh, nl) }

// SessionKeys are the AES-256-GCM keys of the two directions: HMAC-SHA256(secret, "rtype
// control v1 key lobby->host" || nh || nl) and the same with "host->lobby".
func SessionKeys(secret, nh, nl []byte) (l2h, h2l []byte) {
	return mac(secret, labelKeyL2H, nh, nl), mac(secret, labelKeyH2L, nh, nl)
}

// AppendHostHello appends the host's first message: "RTYC", version, host nonce.
func AppendHostHello(b, nh []byte) []byte {
	return append(append(append(b, Magic...), Version), nh...)
}

// AppendLobbyHello appends the lobby's answer: "RTYC", version, lobby nonce, LobbyProof.
func AppendLobbyHello(b, secret, nh, nl []byte) []byte {
	return append(append(append(append(b, Magic...), Version), nl...), LobbyProof(secret, nh, nl)...)
}

// parseHello checks the magic and version of a hello and returns what follows.
func parseHello(b []byte) ([]byte, error) {
	if string(b[:len(Magic)]) != Magic {
		return nil, errors.New("fleet: not an rtype control peer (no RTYC magic)")
	}
	if b[len(Magic)] != Version {
		return nil, fmt.Errorf("fleet: control protocol version %d, this build speaks %d", b[len(Magic)], Version)
	}
	return b[len(Magic)+1:], nil
}

// Conn is one authenticated, encrypted control connection: frames of one JSON message each,
// sealed with AES-256-GCM under the direction's session key, the frame's sequence number as
// the nonce (docs/CONTROL.md §3). Read and Write may be called from one goroutine each.
type Conn struct {
	nc   net.Conn
	rd   cipher.AEAD
	wr   cipher.AEAD
	rseq uint64

	wmu  sync.Mutex
	wseq uint64
	wbuf []byte
	rbuf []byte
}

func newConn(nc net.Conn, rkey, wkey []byte) (*Conn, error) {
	rd, err := gcm(rkey)
	if err != nil {
		return nil, err
	}
	wr, err := gcm(wkey)
	if err != nil {
		return nil, err
	}
	return &Conn{nc: nc, rd: rd, wr: wr}, nil
}

func gcm(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// ServerHandshake runs the host's side of the handshake on nc with nonce nh (nil: from
// crypto/rand) and returns the secured connection, or ErrAuth (nc is then to be closed: the
// host answers a failed proof with nothing).
func ServerHandshake(nc net.Conn, secret, nh []byte) (*Conn, error) {
	return serverHandshake(nc, secret, nh, time.Now().Add(HandshakeTimeout))
}

// serverHandshake is ServerHandshake within deadline (the Host's: HostHandshakeTimeout from
// the accept, its TLS handshake included).
func serverHandshake(nc net.Conn, secret, nh []byte, deadline time.Time) (*Conn, error) {
	if nh == nil {
		nh = make([]byte, NonceSize)
		if _, err := rand.Read(nh); err != nil {
			return nil, err
		}
	}
	nc.SetDeadline(deadline)
	defer nc.SetDeadline(time.Time{})
	if _, err := nc.Write(AppendHostHello(nil, nh)); err != nil {
		return nil, err
	}
	b := make([]byte, LobbyHelloSize)
	if _, err := io.ReadFull(nc, b); err != nil {
		return nil, fmt.Errorf("fleet: lobby hello: %w", err)
	}
	rest, err := parseHello(b)
	if err != nil {
		return nil, err
	}
	nl, proof := rest[:NonceSize], rest[NonceSize:]
	if !hmac.Equal(proof, LobbyProof(secret, nh, nl)) {
		return nil, ErrAuth
	}
	if _, err := nc.Write(HostProof(secret, nh, nl)); err != nil {
		return nil, err
	}
	l2h, h2l := SessionKeys(secret, nh, nl)
	return newConn(nc, l2h, h2l)
}

// ClientHandshake runs the lobby's side on nc with nonce nl (nil: from crypto/rand): it
// proves the secret and checks the host's proof (a host that does not know the secret cannot
// learn the game's session keys, nor pose as a host).
func ClientHandshake(nc net.Conn, secret, nl []byte) (*Conn, error) {
	if nl == nil {
		nl = make([]byte, NonceSize)
		if _, err := rand.Read(nl); err != nil {
			return nil, err
		}
	}
	nc.SetDeadline(time.Now().Add(HandshakeTimeout))
	defer nc.SetDeadline(time.Time{})
	b := make([]byte, HostHelloSize)
	if _, err := io.ReadFull(nc, b); err != nil {
		return nil, fmt.Errorf("fleet: host hello: %w", err)
	}
	nh, err := parseHello(b)
	if err != nil {
		return nil, err
	}
	if _, err := nc.Write(AppendLobbyHello(nil, secret, nh, nl)); err != nil {
		return nil, err
	}
	proof := make([]byte, HostProofSize)
	if _, err := io.ReadFull(nc, proof); err != nil {
		return nil, fmt.Errorf("%w: the host closed the connection during the handshake (%v)", ErrAuth, err)
	}
	if !hmac.Equal(proof, HostProof(secret, nh, nl)) {
		return nil, ErrAuth
	}
	l2h, h2l := SessionKeys(secret, nh, nl)
	return newConn(nc, h2l, l2h)
}

// SealFrame appends one frame: the ciphertext's length (u32 big-endian, tag included), then
// AES-GCM(key, nonce = 4 zero bytes || seq u64 big-endian, plaintext, additional data = the
// length bytes).
func SealFrame(b []byte, aead cipher.AEAD, seq uint64, plain []byte) []byte {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(plain)+aead.Overhead()))
	b = append(b, n[:]...)
	return aead.Seal(b, frameNonce(seq), plain, n[:])
}

func frameNonce(seq uint64) []byte {
	var nonce [12]byte
	binary.BigEndian.PutUint64(nonce[4:], seq)
	return nonce[:]
}

// Write sends one message (the plaintext of one frame).
func (c *Conn) Write(plain []byte) error {
	if len(plain) > MaxFrame {
		return fmt.Errorf("fleet: control message of %d bytes (max %d)", len(plain), MaxFrame)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf = SealFrame(c.wbuf[:0], c.wr, c.wseq, plain)
	c.wseq++
	c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err := c.nc.Write(c.wbuf)
	return err
}

// writeTimeout bounds one frame's write: a peer that does not read is dropped.
const writeTimeout = 5 * time.Second

// Read returns the next message; it is valid until the next Read. A frame that does not open
// (tampered, replayed, reordered) or is too large is an error: the connection is to be closed.
func (c *Conn) Read(deadline time.Time) ([]byte, error) {
	c.nc.SetReadDeadline(deadline)
	var n [4]byte
	if _, err := io.ReadFull(c.nc, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size < TagSize || size > MaxFrame+TagSize {
		return nil, fmt.Errorf("fleet: control frame of %d bytes (want %d..%d)", size, TagSize, MaxFrame+TagSize)
	}
	if cap(c.rbuf) < int(size) {
		c.rbuf = make([]byte, size)
	}
	ct := c.rbuf[:size]
	if _, err := io.ReadFull(c.nc, ct); err != nil {
		return nil, err
	}
	plain, err := c.rd.Open(ct[:0], frameNonce(c.rseq), ct, n[:])
	if err != nil {
		return nil, errors.New("fleet: control frame does not authenticate (tampered or out of order)")
	}
	c.rseq++
	return plain, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// RemoteAddr is the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.nc.RemoteAddr() }
