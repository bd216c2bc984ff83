package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrListingFault is what errors.Is finds in a StrayKeysError: the store
// answered a listing with keys outside the prefix it was asked for.
var ErrListingFault = errors.New("the store's listing returned keys outside the prefix asked for")

// StrayKeysError says how a listing broke its prefix.
type StrayKeysError struct {
	Prefix string
	Stray  int    // keys outside Prefix
	First  string // the first of them
}

func (e *StrayKeysError) Error() string {
	return fmt.Sprintf("listing %q returned %d keys outside it (first %q): the store ignores the listing prefix, so nothing it listed is deleted",
		e.Prefix, e.Stray, e.First)
}

func (e *StrayKeysError) Unwrap() error { return ErrListingFault }

// ListingStuckError is a listing the store never lets end: a page that
// repeats a continuation token already followed, a page whose keys do
// not come after the last page's (every listing is in key order), or
// page after page with no key. The listing stops there; errors.Is finds
// ErrListingFault in it.
type ListingStuckError struct {
	Prefix string
	Pages  int    // the pages read before it stopped
	Why    string // what did not advance
}

func (e *ListingStuckError) Error() string {
	return fmt.Sprintf("listing %q does not advance (%s, after %d pages): the store is at fault, so the listing was stopped",
		e.Prefix, e.Why, e.Pages)
}

func (e *ListingStuckError) Unwrap() error { return ErrListingFault }

// ListUnder lists prefix as List does but does not take the store's word
// for it: fn sees only keys that start with prefix, and when the store
// returns any other key, ListUnder lists on to the end, counting them, and
// returns a *StrayKeysError. A caller that deletes what it lists must then
// delete nothing of that listing: the store cannot be trusted to have
// listed what was asked.
func ListUnder(ctx context.Context, st Store, prefix string, fn func(ObjectInfo) error) error {
	var stray *StrayKeysError
	err := st.List(ctx, prefix, func(o ObjectInfo) error {
		if !strings.HasPrefix(o.Key, prefix) {
			if stray == nil {
				stray = &StrayKeysError{Prefix: prefix, First: o.Key}
			}
			stray.Stray++
			return nil
		}
		return fn(o)
	})
	if err != nil {
		return err
	}
	if stray != nil {
		return stray
	}
	return nil
}

// KeysUnder collects the keys listed under prefix, checked as ListUnder
// checks them: all of them, or an error and none.
func KeysUnder(ctx context.Context, st Store, prefix string) ([]string, error) {
	var keys []string
	if err := ListUnder(ctx, st, prefix, func(o ObjectInfo) error {
		keys = append(keys, o.Key)
		return nil
	}); err != nil {
		return nil, err
	}
	return keys, nil
}
