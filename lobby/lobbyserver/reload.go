package lobbyserver

import (
	"time"

	"golang.org/x/time/rate"
)

// LiveLimits are the lobby limits a running server may change (SetLimits; rtype-server's SIGHUP):
// the fields of ServerConfig of the same names, with the same defaults for zero values.
type LiveLimits struct {
	MaxLobbies        int
	MaxConns          int
	MaxConnsPerAddr   int
	MaxLobbiesPerAddr int
	CommandRate       float64
	AuthTimeout       time.Duration
	IdleTimeout       time.Duration
}

// LiveLimits returns the limits in force.
func (c *Core) LiveLimits() LiveLimits {
	k := c.cfg
	return LiveLimits{MaxLobbies: k.MaxLobbies, MaxConns: k.MaxConns, MaxConnsPerAddr: k.MaxConnsPerAddr, MaxLobbiesPerAddr: k.MaxLobbiesPerAddr,
		CommandRate: k.CommandRate, AuthTimeout: k.AuthTimeout, IdleTimeout: k.IdleTimeout}
}

// SetLimits replaces the limits at now. Connections and lobbies already open stay (a lower
// MaxConns refuses new connections until fewer are open; no game ends); every open connection
// gets the new command rate at once; the timeouts count from each connection's next deadline
// (its next valid command, or its auth deadline for one that has not authenticated yet).
func (c *Core) SetLimits(now time.Duration, l LiveLimits) {
	k := c.cfg
	k.MaxLobbies, k.MaxConns, k.MaxConnsPerAddr, k.MaxLobbiesPerAddr = l.MaxLobbies, l.MaxConns, l.MaxConnsPerAddr, l.MaxLobbiesPerAddr
	k.CommandRate, k.AuthTimeout, k.IdleTimeout = l.CommandRate, l.AuthTimeout, l.IdleTimeout
	k = k.withDefaults()
	rateChanged := k.CommandRate != c.cfg.CommandRate
	c.cfg = k
	if rateChanged {
		for _, cs := range c.conns {
			cs.cmdRate.SetLimitAt(wall(now), rate.Limit(k.CommandRate))
			cs.cmdRate.SetBurstAt(wall(now), CommandBurstAt(k.CommandRate))
		}
	}
	c.log.Info("lobby limits changed", "maxLobbies", k.MaxLobbies, "maxConns", k.MaxConns, "maxConnsPerAddr", k.MaxConnsPerAddr,
		"maxLobbiesPerAddr", k.MaxLobbiesPerAddr, "commandRate", k.CommandRate, "authTimeout", k.AuthTimeout, "idleTimeout", k.IdleTimeout)
}

// SetLimits replaces the limits of the running server (Core.SetLimits).
func (s *Server) SetLimits(l LiveLimits) {
	s.do(func(now time.Duration) { s.core.SetLimits(now, l) })
}

// LiveLimits returns the limits in force.
func (s *Server) LiveLimits() LiveLimits {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.LiveLimits()
}
