package lobby

// DealShown is the one rule of whether a deal's number may be shown, to
// its player or anybody else, on any screen or in any JSON. A deal the
// player chose (a number they typed, or deal text) is theirs: always
// shown. A deal the server picked for rated or record play (a random or
// winnable-only deal, the daily, a rated room's) is shown once its game
// or race is over, for replay and sharing, and never before: with the
// number anybody could have the solver's line in a millisecond. over is
// the game's being won or lost (abandoned is over too), or the race's
// having ended.
func DealShown(chosen, over bool) bool { return chosen || over }

// DealShown reports whether the room's deal number may be shown: a deal
// the host chose (the room is unrated: RoomConfig.Rated is set exactly
// when nobody chose the deal) always, the server's once the race is over.
func (s Snapshot) DealShown() bool {
	return DealShown(!s.Rated, s.Phase == PhaseResults || s.Phase == PhaseClosed)
}

// HideDeal returns d without its deal's number (Deal 0, Hidden set)
// unless shown, DealShown's answer for the game or room: every server and
// every screen told what a session does gets it so.
func (d Doing) HideDeal(shown bool) Doing {
	if d.Custom || shown {
		return d
	}
	d.Deal, d.Hidden = 0, true
	return d
}
