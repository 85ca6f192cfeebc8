//go:build js

package replayfiles

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/rtype/rtype/game/replay"
)

// InBrowser is true: replays live in the page's localStorage.
const InBrowser = true

// BrowserDir is the one "folder" of the browser build: replay name → localStorage key
// KeyPrefix+name (base64 of the file) and TimePrefix+name (when it was kept, Unix ms).
const (
	BrowserDir = "localStorage"
	KeyPrefix  = "rtype/replays/"
	TimePrefix = "rtype/replay-times/"
	// MaxKept bounds the replays kept in the browser (the oldest go first; localStorage holds
	// about 5 MB per site, a replay a few kB).
	MaxKept = 100
)

// Dir is where the replays are kept: BrowserDir, whatever the settings say.
func Dir(string) string { return BrowserDir }

// storage is window.localStorage, or an error where the browser blocks it.
func storage() (ls js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("replays: no localStorage: %v", r)
		}
	}()
	ls = js.Global().Get("localStorage")
	if ls.IsUndefined() || ls.IsNull() {
		return js.Value{}, errors.New("replays: the browser keeps no replays (no localStorage)")
	}
	return ls, nil
}

// Path is the path of the replay name kept in the browser.
func Path(_, name string) string { return BrowserDir + "/" + name }

func name(path string) string { return strings.TrimPrefix(path, BrowserDir+"/") }

// List returns the replays kept in the browser, in no order.
func List(string) ([]File, error) {
	ls, err := storage()
	if err != nil {
		return nil, err
	}
	var out []File
	n := ls.Get("length").Int()
	for i := 0; i < n; i++ {
		k := ls.Call("key", i).String()
		if !strings.HasPrefix(k, KeyPrefix) {
			continue
		}
		nm := strings.TrimPrefix(k, KeyPrefix)
		ms, _ := strconv.ParseInt(stringOf(ls.Call("getItem", TimePrefix+nm)), 10, 64)
		out = append(out, File{Path: Path("", nm), Mod: time.UnixMilli(ms)})
	}
	return out, nil
}

func stringOf(v js.Value) string {
	if v.Type() != js.TypeString {
		return ""
	}
	return v.String()
}

// Read returns the replay kept at path.
func Read(path string) ([]byte, error) {
	ls, err := storage()
	if err != nil {
		return nil, err
	}
	v := ls.Call("getItem", KeyPrefix+name(path))
	if v.Type() != js.TypeString {
		return nil, fmt.Errorf("%s: no such replay in this browser", path)
	}
	if base64.StdEncoding.DecodedLen(v.Length()) > replay.MaxBytes {
		return nil, fmt.Errorf("%s: more than a replay may hold (%d bytes)", path, replay.MaxBytes)
	}
	return base64.StdEncoding.DecodeString(v.String())
}

// Exists reports whether a replay is kept at path.
func Exists(path string) bool {
	ls, err := storage()
	return err == nil && ls.Call("getItem", KeyPrefix+name(path)).Type() == js.TypeString
}

// Write keeps b as name; when localStorage is full or MaxKept are kept, the oldest go first.
func Write(_ string, nm string, b []byte) (string, error) {
	ls, err := storage()
	if err != nil {
		return "", err
	}
	kept, _ := List("")
	slices.SortFunc(kept, func(a, b File) int { return a.Mod.Compare(b.Mod) })
	for len(kept) >= MaxKept {
		remove(ls, kept[0].Path)
		kept = kept[1:]
	}
	enc := base64.StdEncoding.EncodeToString(b)
	for {
		err := set(ls, KeyPrefix+nm, enc)
		if err == nil {
			break
		}
		if len(kept) == 0 {
			return "", fmt.Errorf("replays: localStorage refused the replay: %w", err)
		}
		remove(ls, kept[0].Path) // QuotaExceededError: make room
		kept = kept[1:]
	}
	_ = set(ls, TimePrefix+nm, strconv.FormatInt(time.Now().UnixMilli(), 10))
	return Path("", nm), nil
}

func remove(ls js.Value, path string) {
	ls.Call("removeItem", KeyPrefix+name(path))
	ls.Call("removeItem", TimePrefix+name(path))
}

// set is localStorage.setItem, its exception (the quota) as an error.
func set(ls js.Value, k, v string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	ls.Call("setItem", k, v)
	return nil
}

// Download offers the replay at path as a file to save (an <a download> clicked), the file a
// desktop client plays with rtype-client -replay FILE.
func Download(path string) error {
	b, err := Read(path)
	if err != nil {
		return err
	}
	doc := js.Global().Get("document")
	arr := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(arr, b)
	blob := js.Global().Get("Blob").New([]any{arr}, map[string]any{"type": "application/octet-stream"})
	url := js.Global().Get("URL").Call("createObjectURL", blob)
	a := doc.Call("createElement", "a")
	a.Set("href", url)
	a.Set("download", name(path))
	doc.Get("body").Call("appendChild", a)
	a.Call("click")
	a.Call("remove")
	var revoke js.Func
	revoke = js.FuncOf(func(js.Value, []js.Value) any {
		js.Global().Get("URL").Call("revokeObjectURL", url)
		revoke.Release()
		return nil
	})
	js.Global().Call("setTimeout", revoke, 60000)
	return nil
}
