package testenv

import (
	"context"

	"github.com/objbench/objbench/storage"
)

// PrefixIgnoring is a store whose listings ignore the prefix asked for and
// return every key, as some gateways and buggy stores do (faultserver's
// IgnoreListPrefix does the same over HTTP).
type PrefixIgnoring struct{ storage.Store }

// List lists the whole store, whatever prefix.
func (p PrefixIgnoring) List(ctx context.Context, _ string, fn func(storage.ObjectInfo) error) error {
	return p.Store.List(ctx, "", fn)
}
