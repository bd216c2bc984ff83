package transfer

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/objbench/objbench/internal/spill"
	"github.com/objbench/objbench/storage"
)

// Check is what the store holds of what a transfer wrote, beside the plan.
// Only the keys the transfer wrote are checked: objects already under the
// prefix (an earlier upload's) are counted apart and never fail it.
type Check struct {
	Objects, Bytes         int64 // of the plan's keys, found with the planned size
	WantObjects, WantBytes int64 // in the plan
	// Missing counts planned keys absent; WrongSize those of another
	// size; Changed those whose ETag is not the one this transfer's upload
	// got back (another writer replaced them), where both are known.
	Missing   int64 `json:"missing"`
	WrongSize int64 `json:"wrong_size,omitempty"`
	Changed   int64 `json:"changed,omitempty"`
	// Compared counts the keys whose ETag was compared.
	Compared int64 `json:"etags_compared,omitempty"`
	// Others and OtherBytes are objects under the prefix that this
	// transfer did not write: reported, not failed.
	Others     int64 `json:"others,omitempty"`
	OtherBytes int64 `json:"other_bytes,omitempty"`
	// First names the first key that failed, to look at.
	First string `json:"first_failure,omitempty"`
}

// OK says whether every key of the plan is in place with its size (and its
// ETag, where compared).
func (c Check) OK() bool {
	return c.Objects == c.WantObjects && c.Bytes == c.WantBytes && c.Missing == 0 && c.WrongSize == 0 && c.Changed == 0
}

func (c Check) String() string {
	var s string
	if c.OK() {
		s = fmt.Sprintf("verified: %d objects, %d bytes", c.Objects, c.Bytes)
		if c.Compared > 0 {
			s += fmt.Sprintf(" (%d ETags as written)", c.Compared)
		}
	} else {
		s = fmt.Sprintf("%d of %d objects (%d of %d bytes) in place: %d missing, %d of another size, %d changed since written",
			c.Objects, c.WantObjects, c.Bytes, c.WantBytes, c.Missing, c.WrongSize, c.Changed)
		if c.First != "" {
			s += " (first: " + c.First + ")"
		}
	}
	if c.Others > 0 {
		s += fmt.Sprintf("; %d objects, %d bytes already under the prefix were not written by this transfer", c.Others, c.OtherBytes)
	}
	return s
}

// Verify lists the plan's prefix in st and checks each key of the plan:
// present, of its planned size, and, when w (what the upload wrote, its
// Result's Written) and the listing both have an ETag for it, with the
// ETag the upload got back. A plan of one object at exactly its prefix
// (s3://b/key) is checked by that key alone; other plans list the prefix
// as a directory (p/, so not p2/).
//
// Nothing is held per key: the plan's keys in key order, what was written
// (sorted on disk) and the listing, which a store returns in key order,
// are merged as they come. A listing that returns a key outside the
// prefix, or goes backwards, is a fault of the store (ErrListingFault):
// an error, nothing counted.
func Verify(ctx context.Context, st storage.Store, p *Plan, w *Written) (Check, error) {
	exact := len(p.Items) == 1 && p.Items[0].Key == p.Prefix
	prefix := p.Prefix
	if !exact {
		prefix = dirPrefix(prefix)
	}
	m := &verifyMerge{}
	if w != nil {
		etags, err := w.open()
		if err != nil {
			return Check{}, err
		}
		defer func() { _ = etags.Close() }()
		m.etags = etags
	}
	var planErr error
	next, stop := iter.Pull(func(yield func(Item) bool) {
		planErr = p.inKeyOrder(ctx, func(it Item) error {
			if !yield(it) {
				return errStop
			}
			return nil
		})
	})
	defer stop()
	m.next = next
	m.advance()
	prev, first := "", true
	err := storage.ListUnder(ctx, st, prefix, func(o storage.ObjectInfo) error {
		if exact && o.Key != p.Prefix {
			return nil
		}
		if !first && o.Key <= prev {
			return fmt.Errorf("%w: listing %q returned %q after %q: not in key order", storage.ErrListingFault, prefix, o.Key, prev)
		}
		prev, first = o.Key, false
		if err := m.listed(o); err != nil {
			return err
		}
		return m.err
	})
	if err == nil {
		err = m.rest()
	}
	stop()
	if planErr != nil && !errors.Is(planErr, errStop) {
		err = errors.Join(err, planErr)
	}
	if m.etags != nil {
		err = errors.Join(err, m.etags.Err())
	}
	if err != nil {
		return Check{}, err
	}
	return m.c, nil
}

var errStop = errors.New("stop")

// verifyMerge walks the plan's keys (in key order) beside the listing.
type verifyMerge struct {
	c        Check
	next     func() (Item, bool) // the plan's next item
	head     Item                // the plan's current item
	more     bool                // head is valid
	last     string              // the last planned key taken: a key planned twice is checked once
	etags    *spill.Merger       // what was written, in key order (nil: no ETags)
	etag     spill.Record        // its current record
	eok      bool
	estarted bool
	err      error // the plan came out of key order
}

// advance takes the plan's next key, past repeats of the one before.
func (m *verifyMerge) advance() {
	for {
		m.head, m.more = m.next()
		if !m.more || m.c.WantObjects == 0 || m.head.Key != m.last {
			break
		}
	}
	if m.more && m.c.WantObjects > 0 && m.head.Key < m.last && m.err == nil {
		m.err = fmt.Errorf("the plan's keys are not in key order: %q after %q", m.head.Key, m.last)
	}
	if m.more {
		m.last = m.head.Key
		m.c.WantObjects++
		m.c.WantBytes += m.head.Size
	}
}

func (m *verifyMerge) fail(key string) {
	if m.c.First == "" {
		m.c.First = key
	}
}

// etagOf is the ETag the upload got for key ("": none known).
func (m *verifyMerge) etagOf(key string) string {
	if m.etags == nil {
		return ""
	}
	if !m.estarted {
		m.etag, m.eok = m.etags.Next()
		m.estarted = true
	}
	for m.eok && m.etag.Key < key {
		m.etag, m.eok = m.etags.Next()
	}
	if m.eok && m.etag.Key == key {
		return m.etag.ETag
	}
	return ""
}

// listed checks one listed object against the plan.
func (m *verifyMerge) listed(o storage.ObjectInfo) error {
	for m.more && m.head.Key < o.Key {
		m.c.Missing++
		m.fail(m.head.Key)
		m.advance()
	}
	if !m.more || m.head.Key != o.Key {
		m.c.Others++
		m.c.OtherBytes += o.Size
		return nil
	}
	it := m.head
	m.advance()
	etag := m.etagOf(it.Key)
	switch {
	case o.Size != it.Size:
		m.c.WrongSize++
		m.fail(o.Key)
		return nil
	case etag != "" && o.ETag != "":
		m.c.Compared++
		if unquote(etag) != unquote(o.ETag) {
			m.c.Changed++
			m.fail(o.Key)
			return nil
		}
	}
	m.c.Objects++
	m.c.Bytes += o.Size
	return nil
}

// rest counts the planned keys after the listing's last as missing.
func (m *verifyMerge) rest() error {
	for m.more {
		m.c.Missing++
		m.fail(m.head.Key)
		m.advance()
	}
	return m.err
}

func unquote(etag string) string {
	return strings.ToLower(strings.Trim(strings.TrimPrefix(etag, "W/"), `"`))
}
