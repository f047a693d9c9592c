package main

import (
	"reflect"
	"testing"
)

func TestParseRacerLines(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []racerLine
	}{
		{"none", " room YGRT · Classic · starting\r\n   The race starts in 3…\r\n", nil},
		{"two columns", " room YGRT · Classic · 10:00 left\r\n" +
			" player-95…  0/28   0 mv p1 playing      >player-31…  3/28  12 mv p2 playing    \r\n" +
			" r001x2      28/28 140 mv p3 cleared      r001x3      0/28   0 mv p1 left    \r\n",
			[]racerLine{
				{name: "player-95…"}, {you: true, name: "player-31…", removed: 3, moves: 12},
				{name: "r001x2", removed: 28, moves: 140}, {name: "r001x3"},
			}},
		{"host in the waiting room, a double deal", "*ann         2/45   5 mv p1 playing", []racerLine{{name: "ann", removed: 2, moves: 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseRacerLines(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseRacerLines: got %+v, want %+v", got, tt.want)
			}
		})
	}
}
