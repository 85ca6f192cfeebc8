package scoredb

import (
	"testing"
	"time"
)

// TestBans: on SQLite and PostgreSQL, bans by name and by network are stored with their reason
// and expiry, survive a reopening (the table is migration 2), an expired one is no longer in
// force, and RemoveBans removes by id, by name (any case) and by network.
func TestBans(t *testing.T) {
	eachBackend(t, func(t *testing.T, d Dialect, dsn string) {
		s := openStore(t, d, dsn)
		now := day0
		a, err := s.AddBan(ctx(t), Ban{Name: "Griefer", Reason: "team killing", Created: now})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.AddBan(ctx(t), Ban{Network: "192.0.2.0/24", Reason: "flood", Created: now.Add(time.Second), Expires: now.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddBan(ctx(t), Ban{Name: "x", Network: "192.0.2.1/32"}); err == nil {
			t.Fatal("a ban of a name and a network at once was stored")
		}
		s.Close()
		s = openStore(t, d, dsn)
		got, err := s.Bans(ctx(t), now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0] != a || got[1] != b {
			t.Fatalf("bans after reopening:\n got %+v\nwant %+v and %+v", got, a, b)
		}
		if got, _ := s.Bans(ctx(t), now.Add(time.Hour)); len(got) != 1 || got[0].ID != a.ID {
			t.Fatalf("bans once the network's has expired: %+v, want the name's only", got)
		}
		if n, err := s.RemoveBans(ctx(t), "griefer"); err != nil || n != 1 {
			t.Fatalf("RemoveBans(griefer): %d, %v; want 1", n, err)
		}
		c, _ := s.AddBan(ctx(t), Ban{Network: "2001:db8::/32", Created: now})
		if n, _ := s.RemoveBans(ctx(t), c.ID); n != 1 {
			t.Fatalf("RemoveBans by id: %d, want 1", n)
		}
		if _, err := s.AddBan(ctx(t), Ban{Network: "2001:db8::/32", Created: now}); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.RemoveBans(ctx(t), "2001:db8::/32"); n != 1 {
			t.Fatalf("RemoveBans by network: %d, want 1", n)
		}
		if got, _ := s.Bans(ctx(t), now); len(got) != 0 {
			t.Fatalf("bans left: %+v", got)
		}
	})
}
