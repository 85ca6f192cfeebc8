//go:build !js

package netflow

import (
	"context"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/session"
)

// gameSocket leaves cfg as it is: the desktop client's session binds its own UDP socket.
func gameSocket(context.Context, *lobby.Client, *session.Config) error { return nil }
