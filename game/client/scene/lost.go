package scene

// lostScreen says why a connection ended (Reason, Detail); back goes to the title, Rejoin (while
// the ticket is valid) dials the lost game again.
type lostScreen struct{}

func (lostScreen) handle(m *Machine, ev Event) []Cmd {
	switch ev.Kind {
	case EvContinue, EvBack:
		m.Scene, m.Reason, m.Detail = Title, "", ""
	case EvRejoin:
		m.Reason, m.Detail = "", ""
		return m.rejoin(ev)
	case EvConnected:
		return []Cmd{{Kind: CmdDisconnect}}
	}
	return nil
}
