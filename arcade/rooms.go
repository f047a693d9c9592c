package arcade

import (
	"errors"

	"pyramid/engine"
	"pyramid/lobby"
)

// raceRoom is a race room as the arcade uses it: one of this server's
// (lobby.Room) or one shared by the servers of a cluster
// (lobby.SharedRoom).
type raceRoom interface {
	Code() string
	Snapshot() lobby.Snapshot
	Round() lobby.RoundOf
	Leave(playerID string, from lobby.Sink) error
	SetReady(playerID string, ready bool) error
	Start(playerID string) error
	Rematch(playerID string, deal uint64, verdict engine.Verdict, rated bool) error
	Say(playerID, text string) error
	Mute(hostID, playerID string, muted bool) error
	Watch(viewerID string, sink lobby.Sink) (lobby.Snapshot, error)
	Unwatch(viewerID string) error
	Report(playerID string, from lobby.Sink, p lobby.Progress) error
	Close(reason string)
}

var (
	_ raceRoom = (*lobby.Room)(nil)
	_ raceRoom = (*lobby.SharedRoom)(nil)
)

// roomSet is the registry of the rooms: this server's (lobby.Rooms) or the
// cluster's (lobby.SharedRooms), with the same rules.
type roomSet interface {
	Create(host lobby.Entrant, sink lobby.Sink, cfg lobby.RoomConfig) (raceRoom, lobby.Snapshot, error)
	Join(r raceRoom, p lobby.Entrant, sink lobby.Sink) (lobby.Snapshot, error)
	QuickJoin(p lobby.Entrant, sink lobby.Sink, rulesID string) (raceRoom, lobby.Snapshot, error)
	QuickMatch(p lobby.Entrant, sink lobby.Sink, cfg lobby.RoomConfig) (raceRoom, lobby.Snapshot, bool, error)
	Room(code string) (raceRoom, bool)
	Hosted(playerID string) (raceRoom, bool)
	Seated(playerID string) (raceRoom, bool)
	Find(playerID, text string) (raceRoom, error)
	Public() []lobby.RoomInfo
	Waiting() []lobby.RoomInfo
	Close(code, reason string) error
}

// errOtherRoom: a room of the other kind of registry (never happens).
var errOtherRoom = errors.New("arcade: not a room of this registry")

// registry is what lobby.Rooms and lobby.SharedRooms have in common, R
// being their kind of room.
type registry[R raceRoom] interface {
	Create(host lobby.Entrant, sink lobby.Sink, cfg lobby.RoomConfig) (R, lobby.Snapshot, error)
	Join(r R, p lobby.Entrant, sink lobby.Sink) (lobby.Snapshot, error)
	QuickJoin(p lobby.Entrant, sink lobby.Sink, rulesID string) (R, lobby.Snapshot, error)
	QuickMatch(p lobby.Entrant, sink lobby.Sink, cfg lobby.RoomConfig) (R, lobby.Snapshot, bool, error)
	Room(code string) (R, bool)
	Hosted(playerID string) (R, bool)
	Seated(playerID string) (R, bool)
	Find(playerID, text string) (R, error)
	Public() []lobby.RoomInfo
	Waiting() []lobby.RoomInfo
	Close(code, reason string) error
}

// roomsOf is a registry as a roomSet: its rooms as raceRooms, and no
// room at all (a nil raceRoom, not a nil *R) where it has none.
type roomsOf[R raceRoom] struct{ reg registry[R] }

// localRooms is a server's own rooms as a roomSet.
type localRooms = roomsOf[*lobby.Room]

// sharedRooms is the cluster's rooms as a roomSet.
type sharedRooms = roomsOf[*lobby.SharedRoom]

var (
	_ roomSet = localRooms{}
	_ roomSet = sharedRooms{}
)

func (rs roomsOf[R]) Create(host lobby.Entrant, sink lobby.Sink, cfg lobby.RoomConfig) (raceRoom, lobby.Snapshot, error) {
	r, snap, err := rs.reg.Create(host, sink, cfg)
	if err != nil {
		return nil, snap, err
	}
	return r, snap, nil
}

func (rs roomsOf[R]) Join(r raceRoom, p lobby.Entrant, sink lobby.Sink) (lobby.Snapshot, error) {
	own, ok := r.(R)
	if !ok {
		return lobby.Snapshot{}, errOtherRoom
	}
	return rs.reg.Join(own, p, sink)
}

func (rs roomsOf[R]) QuickJoin(p lobby.Entrant, sink lobby.Sink, rulesID string) (raceRoom, lobby.Snapshot, error) {
	r, snap, err := rs.reg.QuickJoin(p, sink, rulesID)
	if err != nil {
		return nil, snap, err
	}
	return r, snap, nil
}

func (rs roomsOf[R]) QuickMatch(p lobby.Entrant, sink lobby.Sink, cfg lobby.RoomConfig) (raceRoom, lobby.Snapshot, bool, error) {
	r, snap, created, err := rs.reg.QuickMatch(p, sink, cfg)
	if err != nil {
		return nil, snap, false, err
	}
	return r, snap, created, nil
}

func (rs roomsOf[R]) Room(code string) (raceRoom, bool) { return found(rs.reg.Room(code)) }

func (rs roomsOf[R]) Hosted(playerID string) (raceRoom, bool) { return found(rs.reg.Hosted(playerID)) }

func (rs roomsOf[R]) Seated(playerID string) (raceRoom, bool) { return found(rs.reg.Seated(playerID)) }

func (rs roomsOf[R]) Find(playerID, text string) (raceRoom, error) {
	r, err := rs.reg.Find(playerID, text)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (rs roomsOf[R]) Public() []lobby.RoomInfo { return rs.reg.Public() }

func (rs roomsOf[R]) Waiting() []lobby.RoomInfo { return rs.reg.Waiting() }

func (rs roomsOf[R]) Close(code, reason string) error { return rs.reg.Close(code, reason) }

func found[R raceRoom](r R, ok bool) (raceRoom, bool) {
	if !ok {
		return nil, false
	}
	return r, true
}
