package transfer

import (
	"context"
	"fmt"
	"strings"

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

// Verify lists the plan's prefix in st and checks each key the transfer
// wrote: present, of its planned size, and, when etags (by item, as
// Result.ETags holds them) and the listing both have one, with the ETag
// the upload got back. A plan of one object at exactly its prefix
// (s3://b/key) is checked by that key alone; other plans list the prefix
// as a directory (p/, so not p2/). A key the listing returns outside the
// prefix is a fault of the store: an error, nothing counted.
func Verify(ctx context.Context, st storage.Store, p *Plan, etags []string) (Check, error) {
	exact := len(p.Items) == 1 && p.Items[0].Key == p.Prefix
	prefix := p.Prefix
	if !exact {
		prefix = dirPrefix(prefix)
	}
	want := make(map[string]int, len(p.Items))
	for i, it := range p.Items {
		want[it.Key] = i
	}
	c := Check{WantObjects: int64(len(want)), WantBytes: p.Bytes()}
	seen := make([]bool, len(p.Items))
	fail := func(key string) {
		if c.First == "" {
			c.First = key
		}
	}
	err := storage.ListUnder(ctx, st, prefix, func(o storage.ObjectInfo) error {
		if exact && o.Key != p.Prefix {
			return nil
		}
		i, ok := want[o.Key]
		if !ok {
			c.Others++
			c.OtherBytes += o.Size
			return nil
		}
		it := p.Items[i]
		seen[i] = true
		switch {
		case o.Size != it.Size:
			c.WrongSize++
			fail(o.Key)
			return nil
		case i < len(etags) && etags[i] != "" && o.ETag != "":
			c.Compared++
			if unquote(etags[i]) != unquote(o.ETag) {
				c.Changed++
				fail(o.Key)
				return nil
			}
		}
		c.Objects++
		c.Bytes += o.Size
		return nil
	})
	if err != nil {
		return Check{}, err
	}
	for i, ok := range seen {
		if !ok && want[p.Items[i].Key] == i { // a key planned twice is checked once

			c.Missing++
			fail(p.Items[i].Key)
		}
	}
	return c, nil
}

func unquote(etag string) string {
	return strings.ToLower(strings.Trim(strings.TrimPrefix(etag, "W/"), `"`))
}
