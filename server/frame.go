package server

import "time"

// The contract between the session's renderer and the program it draws.
// The renderer (render.go) draws a frame after every Update, paced when
// frames come in a burst. A model and its messages may tell it more by
// having one of these methods; the renderer asks with a type assertion,
// and a model or message without them is drawn as Bubble Tea's standard
// renderer would draw it. The tui's Model and messages implement them,
// checked at compile time in the tui's tests (tui/frame_test.go): tui
// imports no server, and server imports no tui.

// PartsViewer is a model that gives its view in parts joined by
// newlines, most of them kept from its last frame: the renderer compares
// the parts with the last frame's without joining them, and keeps them
// as the frame on the screen, so that a frame costs the lines that
// changed rather than a copy of the whole view (a race's frames come
// several a second for every racer of the server).
type PartsViewer interface {
	// ViewParts appends the view's parts to dst and returns it; joined
	// by newlines they are View's string. The strings stay as they are
	// after the next Update: the renderer keeps them.
	ViewParts(dst []string) []string
}

// FrameGapper is a message whose frame is drawn at once when the last
// frame is at least FrameGap old, and else held until it is: events
// that come several a second (an opponent's progress, a chat line) are
// drawn as they come when they are the only news, and share a frame
// when they come close together or right after another frame. Unlike
// slack, a gap makes no lone event wait.
type FrameGapper interface {
	// FrameGap is the least time between the last frame and the frame
	// after the message; the renderer never uses less than its own gap
	// for events (a sixtieth of a second).
	FrameGap() time.Duration
}

// TerminalWriter is a message that carries a terminal sequence for the
// renderer to write with the next frame, which goes at once: a copy to
// the client's clipboard (OSC 52). The renderer writes it as it is, so a
// program builds it from nothing the player did not mean to send there.
type TerminalWriter interface {
	// TerminalSequence is the sequence to write.
	TerminalSequence() string
}

// FrameSlacker is a message whose frame may wait a while for company:
// the renderer holds it up to FrameSlack, and the first frame drawn
// meanwhile (a key's, or another message's) carries it. A clock's tick
// is such a message: each second shows with the next frame that goes
// out anyway, most often a key's.
type FrameSlacker interface {
	// FrameSlack is how long the frame after the message may wait; 0 or
	// less: it is paced as any other event.
	FrameSlack() time.Duration
}
