package tui

import tea "github.com/charmbracelet/bubbletea"

// event is what a screen asks of the root: to show another screen, to
// deal, to quit. A screen raises it in its update (chrome.event) and
// the root does it at once, in the same Update (Model.toScreen), so that
// the next key already meets the screen it leads to. Every event type is
// listed here, with the file that declares it; the replies of commands
// are not events, they name the screen they are for (routed).
type event interface {
	tea.Msg
	isEvent()
}

func (quitMsg) isEvent()         {} // the player ends the session (table.go)
func (backMsg) isEvent()         {} // back to the menu (table.go)
func (newDealMsg) isEvent()      {} // a new deal of the same rules (table.go)
func (helpMsg) isEvent()         {} // the help screen (table.go)
func (helpDoneMsg) isEvent()     {} // the help closes (screens.go)
func (confirmMsg) isEvent()      {} // the answer of the confirmation (screens.go)
func (dealCancelMsg) isEvent()   {} // no more waiting for a deal (game.go)
func (watchLineMsg) isEvent()    {} // the line came: the watch screen opens (game.go)
func (watchDoneMsg) isEvent()    {} // the watch screen closes (watch.go)
func (menuPlayMsg) isEvent()     {} // the menu's deals (menu.go)
func (menuContinueMsg) isEvent() {} // a game in progress (menu.go)
func (menuSettingsMsg) isEvent() {} // a setting changed (menu.go)
func (menuAccountMsg) isEvent()  {} // a screen of the account (menu.go)
func (menuTellMsg) isEvent()     {} // "Tell me when a deal can no longer be won" (lost.go)
func (menuRaceMsg) isEvent()     {} // a race room (race.go)
func (raceLeftMsg) isEvent()     {} // the race screen closes (race.go)
func (ghostAskMsg) isEvent()     {} // race a ghost (ghost.go)
func (menuLobbyMsg) isEvent()    {} // the Lobby (presence.go)
func (spectateOpenMsg) isEvent() {} // watch a player (spectate.go)
func (spectateDoneMsg) isEvent() {} // stop watching (spectate.go)
func (menuArenasMsg) isEvent()   {} // the menu's Arenas (arena.go)
func (arenaMenuMsg) isEvent()    {} // from the arena screen to the menu (arena.go)
func (arenaPairedMsg) isEvent()  {} // an arena race to play (arena.go)
func (arenaWatchMsg) isEvent()   {} // the arena's top game to watch (arena.go)
func (arenaPointsMsg) isEvent()  {} // the player's arena points changed (arena.go)
func (challengeAskMsg) isEvent() {} // challenge a player (challenge.go)

// handleEvent does what a screen asked for.
func (m *Model) handleEvent(msg event) tea.Cmd {
	switch msg := msg.(type) {
	case quitMsg:
		return m.quit()
	case backMsg:
		m.show(screenMenu)
		m.setContinue()
		m.menu().focusContinue()
		if m.playing {
			return m.table().leave()
		}
	case newDealMsg:
		if !m.playing {
			return nil
		}
		spec := dealSpec{rules: m.table().game.Rules()}
		spec.daily = spec.rules.Daily
		return m.askStart(spec)
	case helpMsg:
		m.openHelp()
	case helpDoneMsg:
		m.show(m.back)
	case confirmMsg:
		return m.confirmed(msg.yes)
	case dealCancelMsg:
		m.dealReq++ // the answer, when it comes, is ignored
		m.show(screenMenu)
	case menuPlayMsg:
		return m.askStart(msg.spec)
	case menuContinueMsg:
		return m.continueAt(msg.index)
	case menuSettingsMsg:
		m.menu().settingsChanged = true
		m.settingsChanged()
		return m.keepSettings()
	case menuAccountMsg:
		return m.openAccount(msg.kind)
	case watchLineMsg:
		m.openWatch(msg)
	case watchDoneMsg:
		m.show(screenTable)
	case menuTellMsg:
		return m.tellChanged() // lost.go
	case menuRaceMsg:
		return m.openRace(msg) // race.go
	case raceLeftMsg:
		return m.raceLeft(msg)
	case ghostAskMsg:
		return m.ghostOpen(msg.ref) // ghost.go
	case menuLobbyMsg:
		return m.openLobby() // presence.go
	case spectateOpenMsg:
		return m.askWatch(msg.name)
	case spectateDoneMsg:
		return m.closeSpectate()
	case menuArenasMsg:
		return m.openArenas() // arena.go
	case arenaMenuMsg:
		m.arenaMenu()
	case arenaPairedMsg:
		return m.openArenaRace(msg.code)
	case arenaWatchMsg:
		if a := m.arena(); a != nil {
			a.shown = false // its tick on the way stops
		}
		return m.openRace(menuRaceMsg{code: msg.code, watch: true})
	case arenaPointsMsg:
		if rs := m.race(); rs != nil {
			rs.setArenaPoints(msg.points) // race_arena.go
		}
	case challengeAskMsg:
		return offerChallenge(m.env, msg.screen, msg.name, m.menu().ownRules()) // challenge.go
	}
	return nil
}
