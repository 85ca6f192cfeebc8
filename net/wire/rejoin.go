package wire

import "time"

// RejoinWindow is how long a game keeps the slot of a player whose connection was lost (docs/
// PROTOCOL.md §5.12): the server's instance.RejoinWindow and the client's rejoin ticket both are
// this value.
const RejoinWindow = 60 * time.Second
