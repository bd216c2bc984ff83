package storage_test

import (
	"errors"
	"testing"

	"github.com/objbench/objbench/storage"
)

func TestCheckKeyPath(t *testing.T) {
	for key, safe := range map[string]bool{
		"objbench/RUN/00000001":         true,
		"objbench/RUN/dir/":             true, // a folder marker
		"objbench/RUN/a.b/..c/...":      true, // dots inside a name, and three
		"objbench/RUN/a%2Fb":            true, // decodes to two plain segments
		"objbench/RUN/100%":             true, // not an escape at all
		"":                              true, // not a path: callers refuse it
		"objbench/RUN/../../precious/a": false,
		"objbench/RUN/./a":              false,
		"objbench/RUN/..":               false,
		"objbench/RUN/../":              false,
		"objbench/RUN//a":               false,
		"/objbench/RUN/a":               false,
		"/":                             false,
		"objbench/RUN/..%2F..%2Fprecious%2Fb%2Fc": false,
		"objbench/RUN/%2e%2E/a":                   false,
		"objbench/RUN/%252e%252e/a":               false, // decoded twice
		"objbench/RUN/..\\..\\precious":           false, // a backslash server's separator
		"objbench/RUN/a%2F%2Fb":                   false, // decodes to an empty segment
		"objbench/RUN/a%2F":                       false,
	} {
		err := storage.CheckKeyPath(key)
		if (err == nil) != safe {
			t.Errorf("CheckKeyPath(%q) = %v; want safe %v", key, err, safe)
		}
		var ue *storage.UnsafeKeyError
		if err != nil && (!errors.Is(err, storage.ErrUnsafeKey) || !errors.As(err, &ue) || ue.Key != key) {
			t.Errorf("CheckKeyPath(%q) = %#v: not an UnsafeKeyError naming the key", key, err)
		}
	}
}
