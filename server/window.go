package server

import "sync"

// Window size bounds. A client may claim any uint32 size; the program only
// ever sees sizes inside these bounds, so no view allocates for 65535² cells
// or divides by a zero width.
const (
	defaultWidth  = 80
	defaultHeight = 24
	maxWidth      = 500
	maxHeight     = 200
)

// windowSize is a terminal size in cells.
type windowSize struct {
	Width, Height int
}

// clampWindow turns a client-claimed size into one the program can use: a
// zero dimension gets the classic 80×24 default, anything above the maximum
// is cut to it.
func clampWindow(w, h uint32) windowSize {
	size := windowSize{Width: defaultWidth, Height: defaultHeight}
	if w > 0 {
		size.Width = int(min(w, maxWidth))
	}
	if h > 0 {
		size.Height = int(min(h, maxHeight))
	}
	return size
}

// resizeBox holds a session's latest window size. The request filter writes
// it without ever blocking; the resize watcher reads the newest value when
// notified, so a storm of resizes costs one slot, not a queue.
type resizeBox struct {
	mu     sync.Mutex
	size   windowSize
	known  bool
	notify chan struct{} // capacity 1: "something changed since you last looked"
}

func newResizeBox() *resizeBox {
	return &resizeBox{notify: make(chan struct{}, 1)}
}

// set records a new size and wakes the watcher if it is not already awake.
func (b *resizeBox) set(size windowSize) {
	b.mu.Lock()
	b.size, b.known = size, true
	b.mu.Unlock()
	select {
	case b.notify <- struct{}{}:
	default:
	}
}

// get returns the latest size, or the default if the client never sent one.
func (b *resizeBox) get() windowSize {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.known {
		return windowSize{Width: defaultWidth, Height: defaultHeight}
	}
	return b.size
}
