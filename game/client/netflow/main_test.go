package netflow

import (
	"testing"

	"go.uber.org/goleak"
)

// Runner.Close must leave no goroutine behind (lobby worker, waits, dials).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
