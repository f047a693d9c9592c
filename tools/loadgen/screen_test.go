package main

import "testing"

// The screen reads whole rows out of reads that rewrite a few cells, and
// keeps a sequence or a character cut by the end of a read for the next.
func TestScreen(t *testing.T) {
	s := newScreen(40, 5)
	steps := []struct {
		name, out, want string
	}{
		{"first frame", "\x1b[?1049h\x1b[2J\x1b[H\x1b[Kroom ABCD · 9:58 left\r\n\x1b[K\x1b[1m>me    0/28   0 mv p1 playing\x1b[m", "room ABCD · 9:58 left\n>me    0/28   0 mv p1 playing\n\n\n\n"},
		{"a few cells", "\x1b[H\x1b[2;15H1\x1b[m", ">me    0/28   1 mv p1 playing\n"},
		{"cut in a sequence", "\x1b[H\x1b[2;", ""},
		{"its end", "8H2/28\x1b[m", ">me    2/28   1 mv p1 playing\n"},
		{"cut in a character", "\x1b[H\x1b[1;13H\xe2\x80", ""},
		{"its end", "\xa2x", "room ABCD · •x58 left\n"},
		{"erase right", "\x1b[H\x1b[2;4H\x1b[K", ">me\n"},
		{"erase below", "\x1b[H\x1b[1;5H\x1b[J", "room\n\n\n\n\n"},
		{"wide characters", "\x1b[H\x1b[3H宽x", "宽x\n"},
	}
	for _, st := range steps {
		if got := s.write([]byte(st.out)); got != st.want {
			t.Errorf("%s: rows %q, want %q", st.name, got, st.want)
		}
	}
}
