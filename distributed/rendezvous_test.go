package distributed_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
)

// embedded is a bucket on the embedded S3 server: a real store with a
// real Date header.
func embedded(t *testing.T) *s3.Store {
	t.Helper()
	ctx := context.Background()
	srv, err := s3server.Start(ctx, s3server.Config{Listen: "127.0.0.1:0", Buckets: []string{"meet"}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: "meet", AccessKey: srv.AccessKey(), SecretKey: srv.SecretKey(),
		Region: "us-east-1", PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Four workers meet twice through the store: each meeting returns one
// start instant to all, after the last arrival; after they leave, no
// marker is left.
func TestWorkersMeetThroughTheStore(t *testing.T) {
	st := embedded(t)
	const n = 4
	starts := make([][2]time.Time, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		rv := &distributed.Rendezvous{Store: st, Prefix: "objbench/run-1/_workers/", Worker: distributed.Worker{Rank: r, Size: n},
			Poll: 10 * time.Millisecond, Margin: 50 * time.Millisecond, Timeout: 10 * time.Second}
		wg.Go(func() {
			for i, p := range []string{"main-1", "cleanup-1"} {
				var err error
				if starts[r][i], _, err = rv.Meet(context.Background(), p); err != nil {
					errs[r] = err
					return
				}
			}
			errs[r] = rv.Leave(context.Background(), nil)
		})
	}
	wg.Wait()
	for r := range n {
		if errs[r] != nil {
			t.Fatalf("worker %d: %v", r, errs[r])
		}
		for i := range 2 {
			if !starts[r][i].Equal(starts[0][i]) {
				t.Errorf("worker %d starts point %d at %v, worker 0 at %v", r, i, starts[r][i], starts[0][i])
			}
		}
	}
	var left []string
	_ = st.List(context.Background(), "", func(o storage.ObjectInfo) error { left = append(left, o.Key); return nil })
	if len(left) != 0 {
		t.Errorf("markers left behind: %v", left)
	}
}

// A worker that never comes fails the meeting on the others, named.
func TestMissingWorkerIsNamed(t *testing.T) {
	st := embedded(t)
	rv := &distributed.Rendezvous{Store: st, Prefix: "objbench/run-2/_workers/", Worker: distributed.Worker{Rank: 0, Size: 3},
		Poll: 10 * time.Millisecond, Timeout: 300 * time.Millisecond}
	_, _, err := rv.Meet(context.Background(), "main-1")
	var me *distributed.MissingError
	if !errors.As(err, &me) || len(me.Missing) != 2 || me.Missing[0] != 1 || !strings.Contains(err.Error(), "1, 2") {
		t.Errorf("meeting alone: %v", err)
	}
}

// The store's clock is this machine's (the embedded server runs here):
// the measured offset is within its error of zero, and the error is about
// a round trip on loopback.
func TestOffsetAgainstARealStore(t *testing.T) {
	st := embedded(t)
	off, err := distributed.MeasureOffset(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	// The error is about a round trip: on loopback a millisecond, on a
	// machine whose CPU others hold up to a few hundred.
	if off.Error > time.Second || off.Offset > off.Error+5*time.Millisecond || -off.Offset > off.Error+5*time.Millisecond {
		t.Errorf("offset %v ± %v against a clock on this machine", off.Offset, off.Error)
	}
}

// skewed is a store clock running a known amount ahead, to the second.
type skewed struct{ ahead time.Duration }

func (s skewed) ServerTime(context.Context) (sent, received, server time.Time, err error) {
	sent = time.Now()
	server = time.Now().Add(s.ahead).Truncate(time.Second)
	time.Sleep(time.Millisecond) // a round trip
	return sent, time.Now(), server, nil
}

func TestOffsetFindsAKnownSkew(t *testing.T) {
	for _, ahead := range []time.Duration{400 * time.Millisecond, -1700 * time.Millisecond} {
		off, err := distributed.MeasureOffset(context.Background(), skewed{ahead})
		if err != nil {
			t.Fatal(err)
		}
		if d := off.Offset - ahead; d > off.Error+2*time.Millisecond || -d > off.Error+2*time.Millisecond {
			t.Errorf("store %v ahead: measured %v ± %v", ahead, off.Offset, off.Error)
		}
	}
}
