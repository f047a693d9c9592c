package server

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func TestColorProfile(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		pty  bool
		want termenv.Profile
	}{
		{"no pty", map[string]string{"TERM": "xterm-256color"}, false, termenv.Ascii},
		{"no TERM", map[string]string{}, true, termenv.Ascii},
		{"dumb", map[string]string{"TERM": "dumb"}, true, termenv.Ascii},
		{"NO_COLOR", map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1"}, true, termenv.Ascii},
		{"xterm", map[string]string{"TERM": "xterm"}, true, termenv.ANSI},
		{"linux console", map[string]string{"TERM": "linux"}, true, termenv.ANSI},
		{"256", map[string]string{"TERM": "xterm-256color"}, true, termenv.ANSI256},
		{"tmux 256", map[string]string{"TERM": "tmux-256color"}, true, termenv.ANSI256},
		{"COLORTERM", map[string]string{"TERM": "xterm-256color", "COLORTERM": "truecolor"}, true, termenv.TrueColor},
		{"COLORTERM 24bit", map[string]string{"TERM": "xterm", "COLORTERM": "24bit"}, true, termenv.TrueColor},
		{"kitty", map[string]string{"TERM": "xterm-kitty"}, true, termenv.TrueColor},
		{"direct", map[string]string{"TERM": "xterm-direct"}, true, termenv.TrueColor},
	}
	for _, tt := range tests {
		if got := colorProfile(tt.env, tt.pty); got != tt.want {
			t.Errorf("%s: colorProfile = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestUTF8Locale(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, true},
		{map[string]string{"LANG": "en_US.UTF-8"}, true},
		{map[string]string{"LANG": "de_DE.utf8"}, true},
		{map[string]string{"LANG": "C"}, false},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_ALL": "POSIX"}, false},
		{map[string]string{"LANG": "C", "LC_CTYPE": "C.UTF-8"}, true},
		{map[string]string{"LANG": "fr_FR.ISO-8859-1"}, false},
	}
	for _, tt := range tests {
		if got := isUTF8Locale(tt.env); got != tt.want {
			t.Errorf("isUTF8Locale(%v) = %v, want %v", tt.env, got, tt.want)
		}
	}
}

func TestAllowedEnv(t *testing.T) {
	for name, want := range map[string]bool{
		"TERM": true, "COLORTERM": true, "LANG": true, "LC_ALL": true, "LC_CTYPE": true, "NO_COLOR": true,
		"LC_": false, "LC_x": false, "PATH": false, "LD_PRELOAD": false, "HOME": false, "": false,
	} {
		if got := allowedEnv(name); got != want {
			t.Errorf("allowedEnv(%q) = %v, want %v", name, got, want)
		}
	}
}

// recordingWriter records what is written to it.
type recordingWriter struct{ strings.Builder }

// The renderer must never write to (query) the client: a terminal that does
// not answer would block the first frame.
func TestRendererNeverQueries(t *testing.T) {
	for _, p := range []termenv.Profile{termenv.Ascii, termenv.ANSI, termenv.ANSI256, termenv.TrueColor} {
		var w recordingWriter
		r := newRenderer(&w, p)
		style := r.NewStyle().Foreground(lipgloss.AdaptiveColor{Light: "#000000", Dark: "#ffffff"}).Bold(true)
		out := style.Render("♠ card")
		if w.Len() != 0 {
			t.Errorf("profile %v: renderer wrote %q to the client", p, w.String())
		}
		if !r.HasDarkBackground() || r.ColorProfile() != p {
			t.Errorf("profile %v: renderer has profile %v, dark %v", p, r.ColorProfile(), r.HasDarkBackground())
		}
		if !strings.Contains(out, "♠ card") {
			t.Errorf("profile %v: rendered %q", p, out)
		}
	}
}
