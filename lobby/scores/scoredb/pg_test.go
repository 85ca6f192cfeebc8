package scoredb

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// pgServer is a PostgreSQL server this test binary started itself: initdb and pg_ctl (Debian's
// postgresql package, /usr/lib/postgresql/*/bin) on a temporary directory and a free port. As
// root (CI) it runs as the postgres user, since PostgreSQL refuses to run as root.
type pgServer struct {
	bin, base, data string
	port            int
	cred            *syscall.Credential
}

// pgBin finds the newest PostgreSQL bin directory.
func pgBin() string {
	ms, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(ms, func(i, j int) bool { return pgMajor(ms[i]) < pgMajor(ms[j]) })
	if len(ms) == 0 {
		return ""
	}
	return filepath.Dir(ms[len(ms)-1])
}

func pgMajor(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// startPG starts a fresh server; the caller stops it (stop). It skips the test when PostgreSQL
// is not installed, except under CI (CI=true), where that is a failure: make deps installs it.
func startPG(tb testing.TB) *pgServer {
	tb.Helper()
	bin := pgBin()
	if bin == "" {
		if os.Getenv("CI") != "" {
			tb.Fatal("PostgreSQL is not installed (/usr/lib/postgresql/*/bin/initdb): make deps installs the postgresql package")
		}
		tb.Skip("PostgreSQL is not installed (make deps installs the postgresql package)")
	}
	base, err := os.MkdirTemp("", "rtype-pg-")
	if err != nil {
		tb.Fatal(err)
	}
	s := &pgServer{bin: bin, base: base, data: filepath.Join(base, "data")}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			u, err = user.Lookup("nobody")
		}
		if err != nil {
			tb.Fatalf("running as root and no postgres or nobody user to run PostgreSQL as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(base, uid, gid); err != nil {
			tb.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if out, err := s.cmd("initdb", "-D", s.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions").CombinedOutput(); err != nil {
		os.RemoveAll(base)
		tb.Fatalf("initdb: %v\n%s", err, out)
	}
	s.start(tb)
	return s
}

func (s *pgServer) cmd(name string, args ...string) *exec.Cmd {
	c := exec.Command(filepath.Join(s.bin, name), args...)
	c.Dir = s.base
	c.Env = append(os.Environ(), "LC_ALL=C")
	if s.cred != nil {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return c
}

// start starts (or restarts) the server and waits until it accepts connections.
func (s *pgServer) start(tb testing.TB) {
	tb.Helper()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off", s.port, s.base)
	if out, err := s.cmd("pg_ctl", "-D", s.data, "-l", filepath.Join(s.base, "log"), "-o", opts, "-w", "-t", "30", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.base, "log"))
		tb.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
}

// halt stops the server at once (the database goes away); start brings it back.
func (s *pgServer) halt(tb testing.TB) {
	tb.Helper()
	if out, err := s.cmd("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "stop").CombinedOutput(); err != nil {
		tb.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// stop stops the server and removes its directory.
func (s *pgServer) stop() {
	s.cmd("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "stop").Run()
	os.RemoveAll(s.base)
}

// url is the URL of database db.
func (s *pgServer) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// newDB creates an empty database and returns its URL.
func (s *pgServer) newDB(tb testing.TB) string {
	tb.Helper()
	db, err := sql.Open("pgx", s.url("postgres"))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	name := fmt.Sprintf("t%d", dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatal(err)
	}
	return s.url(name)
}

var (
	sharedPGOnce sync.Once
	sharedPGSrv  *pgServer
	sharedPGErr  string
)

// sharedPG is one server for the whole test binary (TestMain stops it): each test takes a new
// database on it.
func sharedPG(tb testing.TB) *pgServer {
	tb.Helper()
	sharedPGOnce.Do(func() {
		ft := &fatalCatcher{TB: tb}
		func() {
			defer func() { recover() }()
			sharedPGSrv = startPG(ft)
		}()
		sharedPGErr = ft.msg
	})
	if sharedPGSrv == nil {
		if sharedPGErr == "" {
			tb.Skip("PostgreSQL is not installed")
		}
		tb.Fatal(sharedPGErr)
	}
	return sharedPGSrv
}

// fatalCatcher turns Fatal and Skip of startPG into a message, so that sync.Once does not end
// the test that happened to call it first in another way than later ones.
type fatalCatcher struct {
	testing.TB
	msg string
}

func (f *fatalCatcher) Fatal(args ...any) { f.msg = fmt.Sprint(args...); panic(f) }
func (f *fatalCatcher) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}
func (f *fatalCatcher) Skip(args ...any) { panic(f) }
