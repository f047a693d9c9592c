package cluster_test

import (
	"context"
	"testing"
	"time"

	"pyramid/bus"
	"pyramid/bus/pgbus"
	"pyramid/cluster"
	"pyramid/cluster/roomtest"
	"pyramid/store/storetest"
)

// TestRooms runs the rooms' scenarios on the bus in memory: a server
// alone's, and the servers' of one process.
func TestRooms(t *testing.T) {
	roomtest.Run(t, func(t *testing.T, now func() time.Time) func() bus.Bus {
		b := bus.NewMemory(bus.MemoryOptions{Now: now, Lossless: true})
		t.Cleanup(func() { b.Close() })
		return func() bus.Bus { return b }
	})
}

// TestRoomsPostgres runs the rooms' scenarios on PostgreSQL's bus, each
// in a schema of its own (skipped without a test database).
func TestRoomsPostgres(t *testing.T) {
	storetest.PostgresURL(t)
	roomtest.Run(t, func(t *testing.T, _ func() time.Time) func() bus.Bus {
		u := storetest.PostgresSchemaURL(t)
		return func() bus.Bus {
			b, err := pgbus.Open(context.Background(), u, pgbus.Options{RetainTopic: map[string]int{cluster.RoomsTopic: cluster.RoomsRetain}})
			if err != nil {
				t.Fatalf("open the bus: %v", err)
			}
			t.Cleanup(func() { b.Close() })
			return b
		}
	})
}
