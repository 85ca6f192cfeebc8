package lobbyserver

import (
	"errors"
	"strings"
	"testing"

	"github.com/rtype/rtype/lobby"
)

// TestCorePrivateServer: with a Password, AUTHENTICATE without it is refused (the connection
// stays, to try again), with a wrong one refused and closed, with it (and any name, or none)
// answered 200; a public server takes an old client's AUTHENTICATE and ignores a password.
func TestCorePrivateServer(t *testing.T) {
	v := newVLobby(t, ServerConfig{Password: "s3cr%t!"})
	c := v.open("192.0.2.1")
	if got := c.send("AUTHENTICATE ;alice"); len(got) != 1 || got[0] != "500 "+vSrv+" "+NeedPassword+"\r\n" || c.closed {
		t.Fatalf("without the password: %q, closed %v", got, c.closed)
	}
	if got := c.send("AUTHENTICATE ;alice,s3cr%t!"); len(got) != 1 || got[0][:4] != "200 " {
		t.Fatalf("with the password: %q", got)
	}
	w := v.open("192.0.2.2")
	if got := w.send("AUTHENTICATE ;bob,guess"); len(got) != 1 || got[0] != "500 "+vSrv+" "+WrongPassword+"\r\n" || !w.closed {
		t.Fatalf("a wrong password: %q, closed %v", got, w.closed)
	}
	d := v.open("192.0.2.3")
	if got := d.send("AUTHENTICATE ;,s3cr%t!"); len(got) != 1 || got[0][:4] != "200 " {
		t.Fatalf("the default name with the password: %q", got)
	}
	if got := v.open("192.0.2.4").send("AUTHENTICATE ;a,b,c"); len(got) != 1 || got[0][:4] != "500 " {
		t.Fatalf("three arguments: %q", got)
	}

	pub := newVLobby(t, ServerConfig{})
	pub.open("192.0.2.1").auth("old")
	if got := pub.open("192.0.2.1").send("AUTHENTICATE ;new,whatever"); len(got) != 1 || got[0][:4] != "200 " {
		t.Fatalf("a password to a public server: %q", got)
	}
}

// TestClientAuthenticatePrivate: lobby.Client's AuthenticatePrivate reaches a private server;
// Authenticate gets the 500 that says so.
func TestClientAuthenticatePrivate(t *testing.T) {
	_, addr := startServer(t, ServerConfig{Starter: newFakeStarter(), Password: "letmein"})
	c, err := lobby.Dial(waitCtx(t), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Authenticate("alice")
	var re *lobby.ResponseError
	if !errors.As(err, &re) || re.Code != lobby.CodeWrongRequest || re.Reason != NeedPassword {
		t.Fatalf("Authenticate on a private server: %v", err)
	}
	if _, err := c.AuthenticatePrivate("alice", "letmein"); err != nil {
		t.Fatalf("AuthenticatePrivate: %v", err)
	}
	if _, err := c.AuthenticatePrivate("bob", "has space"); err == nil {
		t.Fatal("a password the protocol cannot carry was sent")
	}
}

// TestCorePrivateLobby: a lobby created with a password is not listed by GET_LOBBIES (the
// pages count the listed ones only), and joining it, as a player or as a spectator of its
// game, takes the password: none or a wrong one get 500 and the connection stays. A public
// lobby is joined as before.
func TestCorePrivateLobby(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	pubOwner := v.player("192.0.2.9", "pub")
	pub := pubOwner.ok(lobby.CmdJoinLobby)
	a := v.player("192.0.2.1", "alice")
	code := a.ok(lobby.CmdJoinLobby, "", "short", "hunter2")
	if got := a.pushes(lobby.PushStage); len(got) != 1 || !strings.HasPrefix(got[0], code+",short,") {
		t.Fatalf("the private lobby's stage: %q", got)
	}
	b := v.player("192.0.2.2", "bob")
	if got := b.ok(lobby.CmdGetLobbies); !strings.Contains(got, pub) || strings.Contains(got, code) {
		t.Fatalf("GET_LOBBIES: %q, want the public lobby %s only", got, pub)
	}
	if got := b.ok(lobby.CmdGetLobbies, "1"); got != "" {
		t.Fatalf("GET_LOBBIES skipping the one listed: %q", got)
	}
	if got := b.fail(lobby.CmdJoinLobby, code); got != "lobby "+code+" is private: send JOIN_LOBBY <uuid>;"+code+",,<password>" {
		t.Fatalf("joining without the password: %q", got)
	}
	if got := b.fail(lobby.CmdJoinLobby, code, "", "guess"); got != "wrong password for lobby "+code {
		t.Fatalf("a wrong password: %q", got)
	}
	if got := b.fail(lobby.CmdJoinLobby, code, "short", "hunter2"); !strings.Contains(got, "a stage is chosen only when creating a lobby") {
		t.Fatalf("a stage with a code: %q", got)
	}
	if got := b.fail(lobby.CmdJoinLobby, "", "", "has space"); !strings.HasPrefix(got, "invalid lobby password") {
		t.Fatalf("a password the protocol cannot carry: %q", got)
	}
	if b.closed {
		t.Fatal("a refused JOIN_LOBBY closed the connection")
	}
	b.ok(lobby.CmdJoinLobby, code, "", "hunter2")
	a.ok(lobby.CmdStart)
	s := v.player("192.0.2.3", "sam")
	s.fail(lobby.CmdJoinLobby, code)
	s.ok(lobby.CmdJoinLobby, code, "", "hunter2") // a spectator of the running game
	if p := v.core.Players(); !p[len(p)-1].Spectator {
		t.Fatalf("sam is no spectator: %+v", p[len(p)-1])
	}
	c := v.player("192.0.2.4", "carl")
	c.ok(lobby.CmdJoinLobby, pub) // public: as before
}

// TestClientPrivateLobby: lobby.Client's CreatePrivate and JoinPrivate over a real connection.
func TestClientPrivateLobby(t *testing.T) {
	_, addr := startServer(t, ServerConfig{Starter: newFakeStarter()})
	a, _ := dialClient(t, addr, "alice")
	b, _ := dialClient(t, addr, "bob")
	code, err := a.CreatePrivate("", "hunter2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Join(code); err == nil {
		t.Fatal("Join of a private lobby without its password succeeded")
	}
	if got, err := b.JoinPrivate(code, "hunter2"); err != nil || got != code {
		t.Fatalf("JoinPrivate: %q, %v", got, err)
	}
	waitMembers(t, a, code, "alice", "bob")
}
