package tui

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/muesli/termenv"
)

// TestRenderLines: the board's frame in parts (renderLines) joins to
// render's frame, at every size and after every key; a line the key
// left as it was is the very string drawn before.
func TestRenderLines(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		w, h int
	}{
		{"classic_80x24", []string{"classic", "42"}, 80, 24},
		{"classic_100x34", []string{"classic", "42"}, 100, 34},
		{"classic_120x40", []string{"classic", "42"}, 120, 40},
		{"double_160x50", []string{"double", "7"}, 160, 50},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Deps{Args: tt.args, Unicode: true, Width: tt.w, Height: tt.h, Renderer: renderer(termenv.ANSI256)})
			var kept []string
			for i, k := range []string{"", "l", "l", "h", "d", "k", ":", "esc", "j", "u"} {
				if k != "" {
					h.send(keyMsg(k))
				}
				tb := h.m.table()
				var p *Prompt
				if tb.promptOpen {
					p = &tb.prompt
				}
				keys := tb.barKeys()
				before := append([]string(nil), kept...)
				kept = tb.renderLines(kept, tb, "", p, keys[:], tableBarDrop[:])
				want := tb.render(tb, "", p, keys[:], tableBarDrop[:])
				if got := strings.Join(kept, "\n"); got != want {
					t.Fatalf("key %d (%q): the parts join to\n%s\nwant\n%s", i, k, got, want)
				}
				for j := range min(len(kept), len(before)) {
					if kept[j] == before[j] && kept[j] != "" && unsafe.StringData(kept[j]) != unsafe.StringData(before[j]) {
						t.Errorf("key %d (%q): part %d is the same text drawn again, want the kept string", i, k, j)
					}
				}
			}
		})
	}
}
