package scene

import "github.com/rtype/rtype/lobby"

// Private servers and lobbies (docs/PROTOCOL.md §2.4.1, §2.4.3): when AUTHENTICATE or
// JOIN_LOBBY is refused for want of a password (lobby.PasswordRefusal), the Connect or Browser
// screen asks the player for it (Ask, and Error saying what is asked or that the one typed was
// wrong); EvSubmitPassword tries again with it, EvCancelPassword gives up.

// PasswordWords says what a password prompt asks, in player words (code: the lobby's).
func PasswordWords(ask lobby.PasswordAsk, code string) string {
	switch ask {
	case lobby.AskServer:
		return "This server is private: type its password."
	case lobby.AskServerAgain:
		return "Wrong password for this server: try again."
	case lobby.AskLobby:
		return "Lobby " + code + " is private: type its password."
	case lobby.AskLobbyAgain:
		return "Wrong password for lobby " + code + ": try again."
	}
	return ""
}

// askServerPassword opens the server password prompt when err is a private server's refusal.
func (m *Machine) askServerPassword(err error) bool {
	ask := lobby.PasswordRefusal(err)
	if ask != lobby.AskServer && ask != lobby.AskServerAgain {
		return false
	}
	m.Ask, m.Busy, m.Error, m.Detail = ask, "", PasswordWords(ask, ""), ""
	return true
}

// askLobbyPassword opens the lobby password prompt when err is a private lobby's refusal of
// the lobby being joined.
func (m *Machine) askLobbyPassword(err error) bool {
	ask := lobby.PasswordRefusal(err)
	if (ask != lobby.AskLobby && ask != lobby.AskLobbyAgain) || m.joining == "" {
		return false
	}
	m.Ask, m.Busy, m.Error, m.Detail = ask, "", PasswordWords(ask, m.joining), ""
	return true
}

// passwordEvent handles the prompt's events (ok false: ev is not one): the server's password
// dials again with it (the server closed the connection on a wrong one), the lobby's joins
// again with it.
func (m *Machine) passwordEvent(ev Event) (cmds []Cmd, ok bool) {
	switch ev.Kind {
	case EvSubmitPassword:
		if m.Ask == lobby.AskNone || m.Busy != "" || !lobby.ValidPassword(ev.Password) {
			if m.Ask != lobby.AskNone && !lobby.ValidPassword(ev.Password) {
				m.Error = "A password is " + lobby.PasswordRule + "."
			}
			return nil, true
		}
		ask := m.Ask
		m.Ask, m.Error = lobby.AskNone, ""
		if ask == lobby.AskServer || ask == lobby.AskServerAgain {
			m.Busy = "Connecting"
			return []Cmd{{Kind: CmdDialLobby, Addr: m.Addr, Password: ev.Password}}, true
		}
		m.Busy = "Joining " + m.joining
		return []Cmd{{Kind: CmdJoin, Code: m.joining, Password: ev.Password}}, true
	case EvCancelPassword:
		m.Ask, m.Error = lobby.AskNone, ""
		return nil, true
	}
	return nil, false
}
