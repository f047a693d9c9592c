package server

import (
	"sync"
	"time"
)

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
// it without ever blocking. Once the session's program exists (deliverTo),
// a change starts a delivery goroutine that lives only while there is a
// size to hand over: a storm of resizes costs one slot, not a queue, and a
// session that does not resize keeps no goroutine waiting for one.
type resizeBox struct {
	mu    sync.Mutex
	size  windowSize
	known bool

	// Delivery, once deliverTo was called.
	send       func(windowSize) // blocks until the program has it or has ended
	now        func() time.Time
	run        func(func()) // starts a goroutine (Server.goSafe)
	sent       windowSize   // the last size handed over; zero before the first
	last       time.Time    // when sent was handed over
	delivering bool         // a delivery goroutine runs
}

func newResizeBox() *resizeBox { return &resizeBox{} }

// set records a new size and starts a delivery if there is a program and
// no delivery runs.
func (b *resizeBox) set(size windowSize) {
	b.mu.Lock()
	b.size, b.known = size, true
	start := b.startLocked()
	b.mu.Unlock()
	if start {
		b.run(b.deliver)
	}
}

// deliverTo hands the sizes to send from now on: the current one at once,
// then the newest at most once per resizeInterval, always ending with the
// last size set. send may block (tea.Program.Send); run starts the
// goroutine that calls it.
func (b *resizeBox) deliverTo(send func(windowSize), now func() time.Time, run func(func())) {
	b.mu.Lock()
	b.send, b.now, b.run = send, now, run
	start := b.startLocked()
	b.mu.Unlock()
	if start {
		run(b.deliver)
	}
}

// startLocked reports whether a delivery goroutine is to be started, and
// marks it as running.
func (b *resizeBox) startLocked() bool {
	if b.send == nil || b.delivering {
		return false
	}
	b.delivering = true
	return true
}

// deliver hands over sizes until the newest one has been handed over.
func (b *resizeBox) deliver() {
	for {
		b.mu.Lock()
		size := b.currentLocked()
		if size == b.sent {
			b.delivering = false
			b.mu.Unlock()
			return
		}
		wait := time.Duration(0)
		if b.sent != (windowSize{}) {
			wait = resizeInterval - b.now().Sub(b.last)
		}
		b.mu.Unlock()
		if wait > 0 {
			time.Sleep(wait) // then take the newest size
			continue
		}
		b.send(size)
		b.mu.Lock()
		b.sent, b.last = size, b.now()
		b.mu.Unlock()
	}
}

// get returns the latest size, or the default if the client never sent one.
func (b *resizeBox) get() windowSize {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.currentLocked()
}

// currentLocked is get with the lock held.
func (b *resizeBox) currentLocked() windowSize {
	if !b.known {
		return windowSize{Width: defaultWidth, Height: defaultHeight}
	}
	return b.size
}
