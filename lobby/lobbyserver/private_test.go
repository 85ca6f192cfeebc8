package lobbyserver

import (
	"errors"
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
