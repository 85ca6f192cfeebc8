package server

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/rtype/rtype/lobby/lobbyserver"
)

// Reload is what a configuration reload (rtype-server's SIGHUP) hands the running server
// (Config.Reloads): the lobby limits to apply at once. The bans are read again from the
// database with each.
type Reload struct {
	Limits lobbyserver.LiveLimits
}

// run loads the bans, before it returns when the database is up (the lobby then serves no
// banned player, not even for a moment), else in the background once it comes up
// (loadBansAtStart); then it applies the reloads from ch (applyReloads) until ctx is done or
// stop is called; stop returns once they have ended.
func (m *moderation) run(ctx context.Context, ch <-chan Reload) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if err := m.loadBans(ctx); err != nil {
		if !errors.Is(err, errNoDB) {
			m.log.Error("bans not loaded; trying again in 5 s", "err", err)
		}
		wg.Go(func() { m.loadBansAtStart(ctx) })
	}
	wg.Go(func() { applyReloads(ctx, ch, m.srv, m, m.log) })
	return func() { cancel(); wg.Wait() }
}

// applyReloads applies each reload from ch to the lobby srv until ctx is done (ch nil: none
// comes).
func applyReloads(ctx context.Context, ch <-chan Reload, srv *lobbyserver.Server, mod *moderation, log *slog.Logger) {
	if ch == nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-ch:
			srv.SetLimits(r.Limits)
			if mod != nil {
				if err := mod.loadBans(ctx); err != nil {
					log.Error("bans not reloaded: the ones in force stay", "err", err)
				}
			}
		}
	}
}
