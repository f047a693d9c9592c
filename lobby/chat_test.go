package lobby

import (
	"errors"
	"strings"
	"testing"
)

func TestCleanChat(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            error
	}{
		{"plain", "  good luck!  ", "good luck!", nil},
		{"escape", "hi \x1b[31mred", `hi \x1b[31mred`, nil},
		{"bidi", "abc\u202edef", `abc\u202edef`, nil},
		{"newline", "a\nb", `a\x0ab`, nil},
		{"C1", "a\u009bb", `a\u009bb`, nil},
		{"empty", "   ", "", ErrChatEmpty},
		{"200 runes", strings.Repeat("é", MaxChatLen), strings.Repeat("é", MaxChatLen), nil},
		{"201 runes", strings.Repeat("a", MaxChatLen+1), "", ErrChatTooLong},
		{"200 escapes", strings.Repeat("\x07", MaxChatLen), strings.Repeat(`\x07`, MaxChatLen), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CleanChat(tt.in)
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("CleanChat(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
}
