package loadgen

import "io"

// closeAtEnd keeps c (a corpus being uploaded) open until the run ends.
func (r *runState) closeAtEnd(c io.Closer) {
	r.mu.Lock()
	r.closers = append(r.closers, c)
	r.mu.Unlock()
}

// closeAll closes what closeAtEnd kept, the last first (a corpus's feed
// before its corpus); a corpus's reader failing to exit changes nothing
// the run measured.
func (r *runState) closeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.closers) - 1; i >= 0; i-- {
		_ = r.closers[i].Close()
	}
	r.closers = nil
}
