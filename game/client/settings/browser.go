//go:build js

package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"syscall/js"
)

// StorageKey is the browser's localStorage key of the settings (the js/wasm client has no
// settings file); a corrupt value is kept under StorageKey+BadSuffix, as Load keeps a file.
const StorageKey = "rtype/" + FileName

// storage is window.localStorage, or an error saying why there is none (a private window or
// a page whose storage is blocked: the settings then last as long as the tab).
func storage() (js.Value, error) {
	var ls js.Value
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil { // reading localStorage throws where it is blocked
				err = fmt.Errorf("%v", r)
			}
		}()
		ls = js.Global().Get("localStorage")
		return nil
	}()
	if err == nil && (ls.IsUndefined() || ls.IsNull()) {
		err = errors.New("no localStorage")
	}
	if err != nil {
		return js.Value{}, fmt.Errorf("settings: the browser keeps no settings (%v): they last until the tab closes", err)
	}
	return ls, nil
}

// Load reads the settings from the browser's localStorage (override is ignored: one store per
// origin). It always returns usable settings; errors are as for the settings file.
func Load(override string) (Settings, error) {
	ls, err := storage()
	if err != nil {
		return Default(), err
	}
	v := ls.Call("getItem", StorageKey)
	if v.IsNull() || v.IsUndefined() {
		return Default(), nil
	}
	where := "localStorage " + StorageKey
	st, err := Parse(where, []byte(v.String()))
	if errors.Is(err, ErrCorrupt) {
		ls.Call("setItem", StorageKey+BadSuffix, v)
		err = fmt.Errorf("%w; the value is kept as %s", err, StorageKey+BadSuffix)
	}
	return st, err
}

// Save writes the settings to the browser's localStorage.
func (s Settings) Save(override string) error {
	ls, err := storage()
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	var serr error
	func() {
		defer func() {
			if r := recover(); r != nil { // QuotaExceededError
				serr = fmt.Errorf("settings: localStorage refused them: %v", r)
			}
		}()
		ls.Call("setItem", StorageKey, string(data))
	}()
	return serr
}
