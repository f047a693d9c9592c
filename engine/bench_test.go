package engine

import "testing"

// midGame returns deal 42 under classic rules after twenty heuristic moves.
func midGame(b *testing.B) *Game {
	g, err := NewNumbered(Classic(), 42)
	if err != nil {
		b.Fatal(err)
	}
	for range 20 {
		m, ok := g.Hint()
		if !ok {
			b.Fatal("no hint")
		}
		if err := g.Apply(m); err != nil {
			b.Fatal(err)
		}
	}
	return g
}

func BenchmarkLegal(b *testing.B) {
	g := midGame(b)
	buf := make([]Move, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = g.AppendLegal(buf[:0])
	}
}

func BenchmarkApplyUndo(b *testing.B) {
	g := midGame(b)
	m, _ := g.Hint()
	b.ReportAllocs()
	for b.Loop() {
		if err := g.Apply(m); err != nil {
			b.Fatal(err)
		}
		if err := g.Undo(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStatus(b *testing.B) {
	g := midGame(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = g.Status()
	}
}

func BenchmarkHint(b *testing.B) {
	g := midGame(b)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = g.Hint()
	}
}

// BenchmarkReplay100 replays a 100-move record: what loading a saved game
// costs.
func BenchmarkReplay100(b *testing.B) {
	var g *Game
	for seed := uint64(0); g == nil || g.MovesMade() < 100; seed++ {
		g, _ = NewNumbered(MustRules("relaxed"), seed)
		for g.MovesMade() < 100 {
			m, ok := g.Hint()
			if !ok {
				break // won or stuck: try the next deal
			}
			_ = g.Apply(m)
		}
	}
	rec := g.Record()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Replay(rec); err != nil {
			b.Fatal(err)
		}
	}
}
