package main

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// TestHealthCommand: `rtype-server health` (the Docker image's HEALTHCHECK) exits 0 against a
// running server's metrics address — given as the flag or as RTYPE_METRICS with no host, as the
// image sets it — and 1 where nothing answers.
func TestHealthCommand(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	metricsPort := strconv.Itoa(freePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	startServerProc(t, ctx, exec.Command(bin, "-addr", addr, "-stage", "short", "-metrics", "127.0.0.1:"+metricsPort), addr)

	if out, err := exec.Command(bin, "health", "-metrics", "127.0.0.1:"+metricsPort).CombinedOutput(); err != nil {
		t.Fatalf("health -metrics: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "health")
	cmd.Env = append(cmd.Environ(), "RTYPE_METRICS=:"+metricsPort)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("health with RTYPE_METRICS=:%s: %v\n%s", metricsPort, err, out)
	}
	out, err := exec.Command(bin, "health", "-metrics", "127.0.0.1:"+strconv.Itoa(freePort(t))).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("health of a closed port: %v, want exit 1\n%s", err, out)
	}
}
