package e2e_test

import (
	"context"
	"strings"
	"testing"

	"github.com/objbench/objbench/faultserver"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// A server whose listings ignore their prefix (as some gateways do) lists
// other people's objects when objbench's cleanup lists its own namespace:
// objbench deletes nothing from that listing, says so and exits 1, and
// the objects it never wrote are all still there.
func TestCleanupDeletesNothingAServerListsOutsideThePrefix(t *testing.T) {
	ctx := context.Background()
	srv, err := faultserver.Start(ctx, faultserver.Config{IgnoreListPrefix: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: srv.Bucket(), PathStyle: true, Region: "us-east-1",
		AccessKey: "safety", SecretKey: "safety-secret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for i := range 20 {
		if _, err := st.Put(ctx, "p/"+string(rune('a'+i)), strings.NewReader("precious"), 8, storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"AWS_ACCESS_KEY_ID=safety", "AWS_SECRET_ACCESS_KEY=safety-secret", "AWS_REGION=us-east-1"}
	r := objbench(t, t.TempDir(), env, "put", "--endpoint-url", srv.Endpoint(), "--bucket", srv.Bucket(), "--ops", "20", "--size", "1KiB")
	if r.code != 1 || !strings.Contains(r.stderr, "ignores the listing prefix") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 naming the listing fault", r.code, r.stderr)
	}
	var survivors int
	_ = st.List(ctx, "p/", func(o storage.ObjectInfo) error {
		if strings.HasPrefix(o.Key, "p/") {
			survivors++
		}
		return nil
	})
	if survivors != 20 {
		t.Errorf("%d of the 20 objects under p/ survived objbench's cleanup", survivors)
	}
}
