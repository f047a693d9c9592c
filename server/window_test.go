package server

import (
	"encoding/binary"
	"testing"
)

func TestClampWindow(t *testing.T) {
	tests := []struct {
		w, h uint32
		want windowSize
	}{
		{0, 0, windowSize{80, 24}},
		{0, 50, windowSize{80, 50}},
		{120, 0, windowSize{120, 24}},
		{1, 1, windowSize{1, 1}},
		{500, 200, windowSize{500, 200}},
		{501, 201, windowSize{500, 200}},
		{65535, 65535, windowSize{500, 200}},
		{4294967295, 4294967295, windowSize{500, 200}},
	}
	for _, tt := range tests {
		if got := clampWindow(tt.w, tt.h); got != tt.want {
			t.Errorf("clampWindow(%d, %d) = %v, want %v", tt.w, tt.h, got, tt.want)
		}
	}
}

func TestResizeBoxKeepsOnlyTheLatest(t *testing.T) {
	b := newResizeBox()
	if got := b.get(); got != (windowSize{80, 24}) {
		t.Errorf("empty box = %v, want 80x24", got)
	}
	for i := range 1000 {
		b.set(windowSize{i + 1, 10}) // never blocks, however many
	}
	if got := b.get(); got != (windowSize{1000, 10}) {
		t.Errorf("box = %v, want the last size", got)
	}
	if len(b.notify) != 1 {
		t.Errorf("notify holds %d wake-ups, want 1", len(b.notify))
	}
}

// Whatever bytes a client sends as a window-change or pty-req, parsing never
// panics and the size the program sees stays in bounds.
func FuzzWindowRequests(f *testing.F) {
	pty := func(term string, w, h uint32) []byte {
		p := binary.BigEndian.AppendUint32(nil, uint32(len(term)))
		p = append(p, term...)
		p = binary.BigEndian.AppendUint32(p, w)
		p = binary.BigEndian.AppendUint32(p, h)
		return append(p, make([]byte, 12)...)
	}
	f.Add(pty("xterm", 80, 24))
	f.Add(pty("", 0, 0))
	f.Add(pty("xterm-256color", 65535, 65535))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1, 2})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, p []byte) {
		checks := func(w, h uint32) {
			s := clampWindow(w, h)
			if s.Width < 1 || s.Width > maxWidth || s.Height < 1 || s.Height > maxHeight {
				t.Fatalf("clampWindow(%d, %d) = %v out of bounds", w, h, s)
			}
		}
		if w, h, ok := parseWindowChange(p); ok {
			checks(w, h)
		}
		if term, w, h, ok := parsePtyReq(p); ok {
			if len(term) > len(p) {
				t.Fatalf("term longer than the payload")
			}
			checks(w, h)
		}
	})
}
