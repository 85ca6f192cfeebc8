package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rtype/rtype/net/agones"
	"github.com/rtype/rtype/net/fleet"
	"github.com/rtype/rtype/net/server"
)

// fleetFlags are the flags of a split server (docs/DEPLOY.md): -role, and a lobby's -hosts or
// a host's -control, -capacity and -drain-timeout; the control secret comes from the env
// RTYPE_CONTROL_SECRET or -control-secret-file (never a flag: ps would show it).
type fleetFlags struct {
	role, hosts, control, secretFile *string
	cert, key, ca                    *string
	capacity                         *int
	drain, hostGrace                 *time.Duration
	leaveGames                       *bool
}

func addFleetFlags(fs *flag.FlagSet) *fleetFlags {
	return &fleetFlags{
		role:       fs.String("role", "", "run only the lobby (lobby: games go to -hosts) or only the games (host: handed over on -control); empty = both in one process"),
		hosts:      fs.String("hosts", "", "with -role lobby: the game hosts' control addresses, host:port,host:port; each game goes to the least loaded"),
		control:    fs.String("control", "", "with -role host: the TCP address the lobby connects to, e.g. :4243 (needs the control secret)"),
		secretFile: fs.String("control-secret-file", "", "file holding the control secret shared by a lobby and its hosts (at least 16 bytes); else the env RTYPE_CONTROL_SECRET"),
		cert:       fs.String("control-cert", "", "run the control channel over mutual TLS: this side's certificate (PEM; a host's must name its -hosts address); with -control-key and -control-ca the secret becomes optional"),
		key:        fs.String("control-key", "", "with -control-cert: its private key (PEM)"),
		ca:         fs.String("control-ca", "", "with -control-cert: the CA (PEM) that signs the other side's certificates"),
		capacity:   fs.Int("capacity", fleet.DefaultCapacity, "with -role host: games it runs at once"),
		leaveGames: fs.Bool("leave-games", false, "with -role lobby: on SIGTERM exit at once, leaving the running games to their hosts, which hand them back (and their results) to the next lobby started on the same -data: an upgrade with no game lost; without it the lobby drains (-drain-timeout)"),
		hostGrace:  fs.Duration("host-grace", fleet.DefaultHostGrace, "with -role lobby: when the control connection to a host fails, keep its games this long while redialling (the host plays on and hands them back); past it, or when the host is known gone, they end as lost; negative = end them at once"),
		drain:      fs.Duration("drain-timeout", server.DefaultDrainTimeout, "on SIGTERM (every role): start no new game, tell the players, and let the running ones end for this long, then end them (a second SIGTERM ends them at once); negative = end them at once"),
	}
}

// apply checks the flags and sets cfg.Fleet; allocator is -allocator (a lobby that allocates on
// Agones needs no -hosts).
func (f *fleetFlags) apply(cfg *server.Config, allocator string) error {
	role, err := server.ParseRole(*f.role)
	if err != nil {
		return err
	}
	if *f.drain == 0 {
		return errors.New("-drain-timeout 0 is ambiguous: give a positive value, or a negative one (-1s) to end games at once")
	}
	if role == "" {
		for name, set := range map[string]bool{"-hosts": *f.hosts != "", "-control": *f.control != ""} {
			if set {
				return fmt.Errorf("%s needs -role (lobby for -hosts, host for -control)", name)
			}
		}
		cfg.Fleet.DrainTimeout = *f.drain // the all-in-one server drains as every role does
		return nil
	}
	if *f.leaveGames && role != server.RoleLobby {
		return errors.New("-leave-games is a lobby's (-role lobby): its hosts keep its games while it restarts")
	}
	if *f.hostGrace != fleet.DefaultHostGrace && role != server.RoleLobby {
		return errors.New("-host-grace is a lobby's (-role lobby): how long it keeps a host's games while the connection to it is down")
	}
	if *f.hostGrace == 0 {
		return errors.New("-host-grace 0 is ambiguous: give a positive value, or a negative one (-1s) to end a lost host's games at once")
	}
	fc := server.FleetConfig{Role: role, Capacity: *f.capacity, DrainTimeout: *f.drain, Control: *f.control, LeaveGames: *f.leaveGames, HostGrace: *f.hostGrace}
	if *f.capacity <= 0 {
		return errors.New("-capacity must be positive")
	}
	switch role {
	case server.RoleLobby:
		if *f.control != "" {
			return errors.New("-control is a host's (-role host); a lobby dials -hosts")
		}
		if *f.hosts != "" || allocator == "" {
			if fc.Hosts, err = fleet.ParseHosts(*f.hosts); err != nil {
				return fmt.Errorf("%w; -role lobby needs its hosts (or -allocator)", err)
			}
		}
	case server.RoleHost:
		if *f.hosts != "" {
			return errors.New("-hosts is a lobby's (-role lobby); a host listens on -control")
		}
		if *f.control == "" {
			return errors.New("-role host needs -control ADDR, the address its lobby connects to (e.g. :4243)")
		}
	}
	secret := os.Getenv("RTYPE_CONTROL_SECRET")
	if *f.secretFile != "" {
		b, err := os.ReadFile(*f.secretFile)
		if err != nil {
			return fmt.Errorf("control secret: %w", err)
		}
		secret, _, _ = strings.Cut(string(b), "\n")
	}
	fc.Secret = []byte(strings.TrimSpace(secret))
	if *f.cert != "" || *f.key != "" || *f.ca != "" {
		if *f.cert == "" || *f.key == "" || *f.ca == "" {
			return errors.New("mutual TLS on the control channel needs all of -control-cert, -control-key and -control-ca")
		}
		if fc.TLS, err = fleet.LoadTLS(*f.cert, *f.key, *f.ca, role == server.RoleHost); err != nil {
			return err
		}
	}
	if err := fleet.CheckAuth(fc.Secret, fc.TLS); err != nil {
		return err
	}
	cfg.Fleet = fc
	return nil
}

// agonesFlags are the Agones flags: a host's -agones, a lobby's -allocator and its mTLS files.
type agonesFlags struct {
	agones                          *bool
	port                            *string
	recycle                         *int
	allocator, namespace, fleetName *string
	allocCert, allocKey, allocCA    *string
}

func addAgonesFlags(fs *flag.FlagSet) *agonesFlags {
	return &agonesFlags{
		agones:    fs.Bool("agones", false, "with -role host: run as an Agones GameServer (SDK sidecar on localhost:$AGONES_SDK_HTTP_PORT: Ready, Health, the games counter, Shutdown after the drain) and advertise its status address and the port named -agones-port; an emptied host goes back to Ready"),
		port:      fs.String("agones-port", server.AgonesGamePort, "with -agones: the name of the GameServer's UDP port players reach (its spec.ports[].name)"),
		recycle:   fs.Int("agones-recycle-after", 0, "with -agones: once empty after this many games, shut the GameServer down so the Fleet starts a fresh one; 0 = never, back to Ready"),
		allocator: fs.String("allocator", "", "with -role lobby: the Agones allocator service URL, e.g. https://agones-allocator.agones-system.svc:443; each game is allocated on -allocator-fleet instead of -hosts"),
		namespace: fs.String("allocator-namespace", "default", "with -allocator: the namespace of the hosts' Fleet"),
		fleetName: fs.String("allocator-fleet", "rtype-hosts", "with -allocator: the hosts' Fleet"),
		allocCert: fs.String("allocator-cert", "", "with -allocator: the client certificate file (PEM)"),
		allocKey:  fs.String("allocator-key", "", "with -allocator: the client key file (PEM)"),
		allocCA:   fs.String("allocator-ca", "", "with -allocator: the CA file (PEM) of the allocator's server certificate; empty = the system's"),
	}
}

// apply sets the Agones part of cfg.Fleet (after fleetFlags.apply).
func (a *agonesFlags) apply(cfg *server.Config) error {
	if *a.agones {
		if cfg.Fleet.Role != server.RoleHost {
			return errors.New("-agones is a host's (-role host); a lobby uses -allocator")
		}
		if *a.recycle < 0 {
			return errors.New("-agones-recycle-after must be 0 (never) or a number of games")
		}
		cfg.Fleet.Agones, cfg.Fleet.AgonesPort, cfg.Fleet.AgonesRecycleAfter = true, *a.port, *a.recycle
	}
	if *a.allocator == "" {
		return nil
	}
	if cfg.Fleet.Role != server.RoleLobby {
		return errors.New("-allocator is a lobby's (-role lobby)")
	}
	cfg.Fleet.Allocator, cfg.Fleet.Namespace, cfg.Fleet.FleetName = *a.allocator, *a.namespace, *a.fleetName
	if strings.HasPrefix(*a.allocator, "http://") {
		return nil // no TLS: a test's fake allocator only (DEPLOY.md: the allocator requires mTLS)
	}
	if *a.allocCert == "" || *a.allocKey == "" {
		return errors.New("-allocator needs -allocator-cert and -allocator-key (the allocator requires mTLS)")
	}
	tc, err := agones.LoadTLS(*a.allocCert, *a.allocKey, *a.allocCA)
	if err != nil {
		return err
	}
	cfg.Fleet.AllocatorTLS = tc
	return nil
}
