package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"
)

// TestJSONLogDurations: in -log-format json a duration reads as "1.5s", not 1500000000.
func TestJSONLogDurations(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: ReplaceLogAttr}))
	log.Info("draining", "drain_timeout", 90*time.Second, slog.Group("g", "wait", 1500*time.Millisecond), "games", 3)
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatal(err)
	}
	if line["drain_timeout"] != "1m30s" || line["g"].(map[string]any)["wait"] != "1.5s" || line["games"] != float64(3) {
		t.Fatalf("%s", buf.Bytes())
	}
}
