package s3

import (
	"bytes"
	"net/http"
	"time"

	"github.com/objbench/objbench/storage"
)

// headReaders bounds, with many workers (lazyRead), the responses whose
// heads are parsed at once, each holding a read buffer. The parse
// allocates (the Response, its header map), and on a busy machine an
// allocating goroutine can be parked in a GC assist, or queued behind
// every runnable worker, buffer in hand: 10,000 workers held 1,300 of
// the 16 KiB buffers at once (21 MB, 2 KB a worker and as much again in
// the GC's headroom). Two cores parse two heads at a time; 64 leaves room
// for the ones descheduled. A head not whole in the buffer after the
// first read (the server wrote it in pieces) waits for the rest without
// holding a turn.
const headReaders = 64

// readHead waits for c's answer to req (unless awaited: known to be
// readable) and reads its head. started
// reports whether any response byte arrived.
func (t *directTransport) readHead(c *directConn, req *http.Request, tr *storage.Trace, ph *storage.Phases, sent time.Time, awaited bool) (resp *http.Response, started bool, err error) {
	turn := false
	if c.rc != nil {
		if !awaited {
			if err := c.raw.awaitReadable(); err != nil {
				return nil, false, err
			}
		}
		select {
		case t.heads <- struct{}{}:
			turn = true
		case <-req.Context().Done():
			return nil, false, req.Context().Err()
		}
		c.br = getReader(&c.raw)
	} else {
		c.br = getReader(c.nc)
	}
	if _, err := c.br.Peek(1); err != nil {
		t.endTurn(&turn)
		return nil, false, err
	}
	first := time.Now()
	ph.Wait = first.Sub(sent)
	if tr != nil {
		tr.FirstByte = first
	}
	if turn {
		if b, _ := c.br.Peek(c.br.Buffered()); !bytes.Contains(b, headEnd) {
			t.endTurn(&turn) // the rest may be long coming: let others parse meanwhile
		}
	}
	resp, err = http.ReadResponse(c.br, req)
	t.endTurn(&turn)
	return resp, true, err
}

// endTurn gives back the turn to parse a head, if *turn says it is held.
func (t *directTransport) endTurn(turn *bool) {
	if *turn {
		*turn = false
		<-t.heads
	}
}

var headEnd = []byte("\r\n\r\n")
