package arcade

import "pyramid/lobby"

// What the club's web page (package web) reads of the arcade as it runs.

// Online is how many are online, on every server of the cluster.
func (a *App) Online() int { return a.lobby.Online() }

// Observe makes sink hear what the lobby tells the public: the number
// online (lobby.PresenceChanged) and the daily boards' new results
// (lobby.DailyChanged), from every server of the cluster, until stop is
// called. The sink is nobody online.
func (a *App) Observe(sink lobby.Sink) (stop func()) { return a.lobby.Observe(sink) }

// Instances names the servers of the cluster that are up, this one
// first; a server alone names itself.
func (a *App) Instances() []string {
	if a.presence != nil {
		return a.presence.Instances()
	}
	return []string{a.instance}
}
