// Package cluster carries the multiplayer domain of package lobby between
// the servers of a cluster, over a bus (package bus: in memory for a
// server alone, PostgreSQL's LISTEN/NOTIFY for servers that share a
// database). lobby decides; cluster carries: it holds the wire forms, the
// topics, the read loops, the leases and the clock.
//
// The race rooms (Rooms, NewRooms) are lobby.Rooms over a log of ops on
// the bus (lobby.RoomLog): one server alone runs them over a bus and a
// lease of its own in memory, the servers of a cluster over PostgreSQL's
// bus and lease. The same rooms code serves both; the conformance suite
// cluster/roomtest runs every room scenario on each bus.
package cluster
