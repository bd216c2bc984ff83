package faultserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// IgnoreListPrefix lists the whole bucket also on a server that checks
// signatures: the prefix is dropped after the client's signature over it
// was checked, so the client sees a listing fault, not a 403.
func TestIgnoreListPrefixWithKeys(t *testing.T) {
	for _, keys := range [][2]string{{"", ""}, {"AKFAULT", "fault-secret"}} {
		ctx := context.Background()
		srv, err := faultserver.Start(ctx, faultserver.Config{IgnoreListPrefix: true, AccessKey: keys[0], SecretKey: keys[1]})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Close(context.Background()) })
		st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), PathStyle: true, Region: "us-east-1",
			AccessKey: "AKFAULT", SecretKey: "fault-secret"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		for _, k := range []string{"p/1", "p/2", "q/1"} {
			if _, err := st.Put(ctx, k, strings.NewReader("x"), 1, storage.PutOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		var listed []string
		err = storage.ListUnder(ctx, st, "p/", func(o storage.ObjectInfo) error {
			listed = append(listed, o.Key)
			return nil
		})
		var stray *storage.StrayKeysError
		if !errors.As(err, &stray) || stray.Stray != 1 || stray.First != "q/1" || len(listed) != 2 {
			t.Errorf("keys %q: listed %q, err %v; want p/1 and p/2 and the stray q/1 named", keys[0], listed, err)
		}
	}
}
