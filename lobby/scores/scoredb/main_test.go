package scoredb

import (
	"os"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

var dbSeq atomic.Int64

func TestMain(m *testing.M) {
	if os.Getenv(killChildEnv) != "" {
		killChild() // the kill -9 test's child process: never returns
	}
	code := m.Run()
	if sharedPGSrv != nil {
		sharedPGSrv.stop()
	}
	os.Exit(code)
}

const killChildEnv = "RTYPE_SCORES_KILL_CHILD"
