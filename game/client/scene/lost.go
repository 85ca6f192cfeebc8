package scene

// lostScreen says why a connection ended (Reason, Detail); back goes to the title, Rejoin (while
// the ticket is valid and the lobby server answers) dials the lost game again.
//
// The Lost screen offers a rejoin only while the lobby server answers (issue 30): a session
// lost with its server (kill -9, a crash, the network) leaves a rejoin ticket whose slot the
// server keeps only if it still runs. Lost checks at once (a dial of the lobby, closed as soon
// as it answers: the rejoin dials again) and says "Checking the server"; LobbyAnswers is then
// true, or Error says the server does not answer and EvRetryConnect checks again. A server
// that said it closes (EvServerClosing) is not checked until asked.
type lostScreen struct{}

func init() { register(Lost, "lost", lostScreen{}) }

func (lostScreen) handle(m *Machine, ev Event) []Cmd {
	switch ev.Kind {
	case EvContinue, EvBack:
		m.Scene, m.Reason, m.Detail, m.probing, m.Busy, m.Error = Title, "", "", false, "", ""
	case EvRejoin:
		if m.probing {
			return nil // the check's dial is in flight: its answer says whether to offer this
		}
		m.Reason, m.Detail = "", ""
		return m.rejoin(ev)
	case EvConnected, EvConnectFailed, EvRetryConnect:
		return m.lostProbe(ev)
	}
	return nil
}

// NoAnswer starts the Lost screen's error when the lobby server does not answer its check.
const NoAnswer = "The server does not answer, so the game cannot be rejoined. "

// CheckingServer is the Lost screen's Busy label while it checks the lobby server.
const CheckingServer = "Checking the server"

// probe starts the Lost screen's check of the lobby server (none after a CLOSING).
func (m *Machine) probe() []Cmd {
	if m.closing != "" || m.probing {
		return nil
	}
	m.probing, m.Busy, m.Error = true, CheckingServer, ""
	return []Cmd{{Kind: CmdDialLobby, Addr: m.Addr}}
}

// lostProbe is the Lost scene's part of Handle for the check: its answer, or a new check.
func (m *Machine) lostProbe(ev Event) []Cmd {
	switch ev.Kind {
	case EvRetryConnect:
		m.closing = "" // asked: check even a server that said it closes (it may be back)
		return m.probe()
	case EvConnected:
		if m.probing {
			m.probing, m.Busy, m.Error, m.LobbyAnswers = false, "", "", true
		}
		return []Cmd{{Kind: CmdDisconnect}} // the check's connection (or a late reply after Back)
	case EvConnectFailed:
		if m.probing {
			m.probing, m.Busy, m.LobbyAnswers = false, "", false
			m.Error = NoAnswer + m.explain(ev.Err)
		}
	}
	return nil
}
