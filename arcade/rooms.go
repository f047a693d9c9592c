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
	Leave(playerID string) error
	SetReady(playerID string, ready bool) error
	Start(playerID string) error
	Rematch(playerID string, deal uint64, verdict engine.Verdict) error
	Say(playerID, text string) error
	Mute(hostID, playerID string, muted bool) error
	Watch(viewerID string, sink lobby.Sink) (lobby.Snapshot, error)
	Unwatch(viewerID string) error
	Report(playerID string, p lobby.Progress) error
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
	Close(code, reason string) error
}

// errOtherRoom: a room of the other kind of registry (never happens).
var errOtherRoom = errors.New("arcade: not a room of this registry")

// localRooms is a server's own rooms as a roomSet.
type localRooms struct{ *lobby.Rooms }

func (l localRooms) Create(host lobby.Entrant, sink lobby.Sink, cfg lobby.RoomConfig) (raceRoom, lobby.Snapshot, error) {
	r, snap, err := l.Rooms.Create(host, sink, cfg)
	if err != nil {
		return nil, snap, err
	}
	return r, snap, nil
}

func (l localRooms) Join(r raceRoom, p lobby.Entrant, sink lobby.Sink) (lobby.Snapshot, error) {
	lr, ok := r.(*lobby.Room)
	if !ok {
		return lobby.Snapshot{}, errOtherRoom
	}
	return l.Rooms.Join(lr, p, sink)
}

func (l localRooms) QuickJoin(p lobby.Entrant, sink lobby.Sink, rulesID string) (raceRoom, lobby.Snapshot, error) {
	r, snap, err := l.Rooms.QuickJoin(p, sink, rulesID)
	if err != nil {
		return nil, snap, err
	}
	return r, snap, nil
}

func (l localRooms) QuickMatch(p lobby.Entrant, sink lobby.Sink, cfg lobby.RoomConfig) (raceRoom, lobby.Snapshot, bool, error) {
	r, snap, created, err := l.Rooms.QuickMatch(p, sink, cfg)
	if err != nil {
		return nil, snap, false, err
	}
	return r, snap, created, nil
}

func (l localRooms) Room(code string) (raceRoom, bool) { return okRoom(l.Rooms.Room(code)) }

func (l localRooms) Hosted(playerID string) (raceRoom, bool) { return okRoom(l.Rooms.Hosted(playerID)) }

func (l localRooms) Seated(playerID string) (raceRoom, bool) { return okRoom(l.Rooms.Seated(playerID)) }

func (l localRooms) Find(playerID, text string) (raceRoom, error) {
	r, err := l.Rooms.Find(playerID, text)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func okRoom(r *lobby.Room, ok bool) (raceRoom, bool) {
	if !ok {
		return nil, false
	}
	return r, true
}

// sharedRooms is the cluster's rooms as a roomSet.
type sharedRooms struct{ *lobby.SharedRooms }

func (s sharedRooms) Create(host lobby.Entrant, sink lobby.Sink, cfg lobby.RoomConfig) (raceRoom, lobby.Snapshot, error) {
	r, snap, err := s.SharedRooms.Create(host, sink, cfg)
	if err != nil {
		return nil, snap, err
	}
	return r, snap, nil
}

func (s sharedRooms) Join(r raceRoom, p lobby.Entrant, sink lobby.Sink) (lobby.Snapshot, error) {
	sr, ok := r.(*lobby.SharedRoom)
	if !ok {
		return lobby.Snapshot{}, errOtherRoom
	}
	return s.SharedRooms.Join(sr, p, sink)
}

func (s sharedRooms) QuickJoin(p lobby.Entrant, sink lobby.Sink, rulesID string) (raceRoom, lobby.Snapshot, error) {
	r, snap, err := s.SharedRooms.QuickJoin(p, sink, rulesID)
	if err != nil {
		return nil, snap, err
	}
	return r, snap, nil
}

func (s sharedRooms) QuickMatch(p lobby.Entrant, sink lobby.Sink, cfg lobby.RoomConfig) (raceRoom, lobby.Snapshot, bool, error) {
	r, snap, created, err := s.SharedRooms.QuickMatch(p, sink, cfg)
	if err != nil {
		return nil, snap, false, err
	}
	return r, snap, created, nil
}

func (s sharedRooms) Room(code string) (raceRoom, bool) { return okShared(s.SharedRooms.Room(code)) }

func (s sharedRooms) Hosted(playerID string) (raceRoom, bool) {
	return okShared(s.SharedRooms.Hosted(playerID))
}

func (s sharedRooms) Seated(playerID string) (raceRoom, bool) {
	return okShared(s.SharedRooms.Seated(playerID))
}

func (s sharedRooms) Find(playerID, text string) (raceRoom, error) {
	r, err := s.SharedRooms.Find(playerID, text)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func okShared(r *lobby.SharedRoom, ok bool) (raceRoom, bool) {
	if !ok {
		return nil, false
	}
	return r, true
}
