package assets

import (
	"encoding/json"
	"io/fs"
	"testing"
)

func TestStagesEmbedded(t *testing.T) {
	for _, name := range []string{"stage1", "short"} {
		b, err := fs.ReadFile(Stages, StagePath(name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !json.Valid(b) {
			t.Errorf("%s is not valid JSON", StagePath(name))
		}
	}
}
