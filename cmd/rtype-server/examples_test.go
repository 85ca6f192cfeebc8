package main

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestExampleServerFlags: the flags docs/PROTOCOL.md §2.1.1 gives for the server of its lobby
// examples are real: the binary, started with them from the repository's root, offers the
// examples' stages (stage1 the default, short, tiny) and their arcade run (short then tiny), as
// the examples show them (lobby's conformance test builds its catalogue from the same flags).
func TestExampleServerFlags(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`rtype-server (-[^`]+)`").FindSubmatch(doc[bytes.Index(doc, []byte("#### 2.1.1")):])
	if m == nil {
		t.Fatal("docs/PROTOCOL.md §2.1.1 gives no rtype-server command for the examples' server")
	}
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	args := append(strings.Fields(string(m[1])), "-addr", addr, "-db", "off")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = "../.." // the flags' paths are relative to the repository's root
	startServerProc(t, ctx, cmd, addr)

	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	line := func() string {
		t.Helper()
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the server's line: %v", err)
		}
		return strings.TrimRight(l, "\r\n")
	}
	send := func(s string) {
		t.Helper()
		if _, err := c.Write([]byte(s + "\r\n")); err != nil {
			t.Fatal(err)
		}
	}
	send("AUTHENTICATE ;alice")
	f := strings.Fields(line())
	if len(f) != 3 || f[0] != "200" {
		t.Fatalf("AUTHENTICATE answered %q", f)
	}
	user := f[2]
	names := func(list string) string { // "a:hash,b:hash" -> "a,b"
		var out []string
		for _, e := range strings.Split(list, ",") {
			n, _, _ := strings.Cut(e, ":")
			out = append(out, n)
		}
		return strings.Join(out, ",")
	}
	send("GET_STAGES " + user + ";")
	if f := strings.Fields(line()); len(f) != 3 || names(f[2]) != "stage1,short,tiny" || !strings.Contains(f[2], "tiny:3f6982c55f73aa30") {
		t.Fatalf("GET_STAGES answered %q, want stage1, short and tiny (3f6982c55f73aa30)", f)
	}
	send("JOIN_LOBBY " + user + ";,arcade")
	var run string
	for range 4 { // 200 CODE, MEMBERS, STAGE, RUN
		if l := line(); strings.HasPrefix(l, "RUN ") {
			_, run, _ = strings.Cut(l, ",")
		}
	}
	if names(run) != "short,tiny" {
		t.Fatalf("the arcade lobby's RUN names %q, want short,tiny", run)
	}
}
