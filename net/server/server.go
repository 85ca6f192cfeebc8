// Package server is the whole rtype server: the TCP lobby (package lobby) on one address and a
// game instance (package net/instance) per started lobby, all on one UDP port. cmd/rtype-server wires flags into
// Config and calls Run; tests run it in-process on loopback.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/linksim"
)

// Config is the server's configuration (the flags of cmd/rtype-server).
type Config struct {
	Addr       string // TCP lobby address, e.g. ":4242" (seed 004 §2)
	UDPHost    string // host the game socket binds ("" = all interfaces)
	UDPPort    int    // UDP port shared by every game (0 = chosen by the OS); START hands it out
	MaxLobbies int
	// Stage is the default stage of new lobbies: an embedded stage's name ("stage1", "short") or
	// a path to a stage JSON file, which is then offered too (game.LoadStageCatalogue).
	Stage  string
	NetSim string // link simulator spec applied to every instance socket ("" = none)
	// IdleTimeout closes lobby connections without traffic (0 = lobby default).
	IdleTimeout time.Duration
	// SilenceTimeout drops a silent player from a game (0 = 10 s).
	SilenceTimeout time.Duration
	// UDPRate is how many datagrams per second each source address may send to the game port
	// (bursts of twice as many); the excess is dropped (0 = instance.DefaultRateLimit, 240;
	// negative = no limit).
	UDPRate int
	Logger  *slog.Logger
	// OnGameEnd, when set, is called with each instance after its game ended (tests).
	OnGameEnd func(in *instance.Instance)
	// Ready, when set, receives the bound lobby address once listening (tests use port 0).
	Ready func(lobbyAddr net.Addr, m *instance.Manager)
}

// Run serves until ctx is cancelled, then ends every running game with GAME_END, closes every
// socket and returns (nil on a clean shutdown).
func Run(ctx context.Context, cfg Config) error {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.Stage == "" {
		cfg.Stage = "stage1"
	}
	stages, err := game.LoadStageCatalogue(cfg.Stage)
	if err != nil {
		return fmt.Errorf("stage: %w", err)
	}
	ns, err := linksim.Parse(cfg.NetSim)
	if err != nil {
		return err
	}
	if cfg.UDPPort < 0 || cfg.UDPPort > 65535 {
		return fmt.Errorf("udp port %d is not valid", cfg.UDPPort)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	mgr, err := instance.NewManager(instance.Config{
		Host: cfg.UDPHost, Port: cfg.UDPPort, Stages: stages.Stage,
		NetSim: ns, SilenceTimeout: cfg.SilenceTimeout, RateLimit: cfg.UDPRate, Logger: log, OnGameEnd: cfg.OnGameEnd,
	})
	if err != nil {
		ln.Close()
		return err
	}
	log.Info("rtype server listening", "lobby", ln.Addr().String(), "udp", net.JoinHostPort(cfg.UDPHost, strconv.Itoa(mgr.Port())),
		"stage", stages.Default().Name, "stages", strings.Join(stages.Names(), ","))
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr(), mgr)
	}
	srv := lobby.NewServer(lobby.ServerConfig{MaxLobbies: cfg.MaxLobbies, IdleTimeout: cfg.IdleTimeout, Starter: mgr, Logger: log,
		Stages: stages})
	// The lobby outlives ctx a little: on shutdown the games end first (GAME_END, acknowledged),
	// then the lobby closes its connections (closing them first would drop the players instead).
	lobbyCtx, stopLobby := context.WithCancel(context.Background())
	defer stopLobby()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(lobbyCtx, ln) }()
	var err2 error
	select {
	case <-ctx.Done():
	case err2 = <-serveErr:
		serveErr <- err2
	}
	log.Info("rtype server shutting down", "games", mgr.Running())
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shutErr := mgr.Shutdown(sctx)
	stopLobby()
	err2 = <-serveErr
	log.Info("rtype server stopped")
	if err2 != nil && !errors.Is(err2, context.Canceled) && !errors.Is(err2, net.ErrClosed) {
		return err2
	}
	return shutErr
}
