package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// CleanRun deletes what run runID left in the target: the objects under
// its namespace (objbench/RUN-ID/) in each bucket its workload used, its
// workers' markers, and last its manifests. It deletes only when the
// run's manifest is there (the evidence that the namespace is an objbench
// run's and of what it wrote: ErrNoRun otherwise), and of what a listing
// returns only the keys the run's own cleanup would (loadgen.CleanableKey:
// inside the namespace, no segment a proxy's path normalisation could
// turn into another key). With dryRun it counts and deletes nothing.
func CleanRun(ctx context.Context, tgt *Target, runID string, dryRun bool) (Cleaned, error) {
	var c Cleaned
	if !runIDPattern.MatchString(runID) {
		return c, fmt.Errorf("run id %q: want letters, digits, '.', '-' and '_' (at most 128)", runID)
	}
	ns := "objbench/" + runID + "/"
	mans, err := manifests(ctx, tgt.Store, ns, runID)
	if err != nil {
		return c, err
	}
	stores, versioned, err := runStores(ctx, tgt, mans)
	if err != nil {
		return c, err
	}
	c.Buckets = len(stores)
	for _, st := range stores {
		if versioned && !dryRun {
			n, err := storage.DeleteVersionsUnder(ctx, st, ns)
			c.Objects += n
			if err != nil {
				return c, fmt.Errorf("versions under %s: %w", ns, err)
			}
			continue
		}
		if err := c.deleteUnder(ctx, st, ns, dryRun); err != nil {
			return c, err
		}
	}
	for _, m := range mans {
		if !dryRun {
			if err := dropManifest(ctx, tgt.Store, ns, m.Rank); err != nil {
				return c, err
			}
		}
		c.Manifests++
	}
	return c, nil
}

// Cleaned is what CleanRun deleted (or, in a dry run, would delete).
type Cleaned struct {
	Objects, Markers, Manifests int
	Bytes                       int64
	Buckets                     int
	// Kept are keys listed under the namespace that are not plain names:
	// never deleted.
	Kept []string
}

func (c Cleaned) String() string {
	s := fmt.Sprintf("%d objects (%d bytes) in %d bucket(s), %d worker markers, %d manifests", c.Objects, c.Bytes, c.Buckets, c.Markers, c.Manifests)
	if len(c.Kept) > 0 {
		s += fmt.Sprintf("; %d keys left alone (not plain names: %q...)", len(c.Kept), c.Kept[0])
	}
	return s
}

// ErrNoRun: no manifest of the run is in the store.
var ErrNoRun = errors.New("no manifest of this run in the store")

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// manifests reads the run's manifests, checking each names the run.
func manifests(ctx context.Context, st storage.Store, ns, runID string) ([]Manifest, error) {
	dir := ns + distributed.MarkerDir + manifestDir
	keys, err := storage.KeysUnder(ctx, st, dir)
	if err != nil {
		return nil, fmt.Errorf("list the run's manifests under %s: %w", dir, err)
	}
	var out []Manifest
	for _, k := range keys {
		var b bytes.Buffer
		if _, err := st.Get(ctx, k, storage.GetOptions{}, &b); err != nil {
			return nil, fmt.Errorf("read %s: %w", k, err)
		}
		var m Manifest
		if err := json.Unmarshal(b.Bytes(), &m); err != nil || m.RunID != runID || m.Namespace != ns || k != manifestKey(ns, m.Rank) {
			return nil, fmt.Errorf("%s is not a manifest of run %s: nothing deleted", k, runID)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("run %s: %w (looked under %s): nothing deleted", runID, ErrNoRun, dir)
	}
	return out, nil
}

// runStores are the target's bucket and every other bucket the run's
// workloads name, and whether some stream kept versions.
func runStores(ctx context.Context, tgt *Target, mans []Manifest) ([]storage.Store, bool, error) {
	stores := []storage.Store{tgt.Store}
	seen := map[string]bool{}
	versioned := false
	for _, m := range mans {
		var sp workload.Spec
		if err := json.Unmarshal(m.Spec, &sp); err != nil {
			return nil, false, fmt.Errorf("the manifest of worker %d: its workload: %w", m.Rank, err)
		}
		versioned = versioned || sp.Versioned()
		var names []string
		for _, st := range sp.Stages {
			names = append(names, sp.Buckets(st)...)
		}
		sort.Strings(names)
		for _, b := range names {
			if seen[b] || b == tgt.Info.Bucket {
				continue
			}
			seen[b] = true
			s, err := tgt.Bucket(ctx, b, 1)
			if err != nil {
				return nil, false, fmt.Errorf("bucket %s of the run: %w", b, err)
			}
			stores = append(stores, s)
		}
	}
	return stores, versioned, nil
}

// deleteUnder deletes the plain-named keys under ns (markers counted
// apart, manifests left for last).
func (c *Cleaned) deleteUnder(ctx context.Context, st storage.Store, ns string, dryRun bool) error {
	markers := ns + distributed.MarkerDir
	var keys []storage.ObjectInfo
	err := storage.ListUnder(ctx, st, ns, func(o storage.ObjectInfo) error {
		switch {
		case loadgen.CleanableKey(ns, o.Key) != nil: // the same rule as the run's own cleanup
			c.Kept = append(c.Kept, o.Key)
		case strings.HasPrefix(o.Key, markers+manifestDir):
		case strings.HasPrefix(o.Key, markers):
			if distributed.IsMarker(strings.TrimPrefix(o.Key, markers)) {
				keys = append(keys, o)
			} else {
				c.Kept = append(c.Kept, o.Key)
			}
		default:
			keys = append(keys, o)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list %s: %w", ns, err)
	}
	for _, o := range keys {
		if !dryRun {
			if err := st.Delete(ctx, o.Key); err != nil && storage.ErrorClass(err) != storage.ClassNotFound {
				return fmt.Errorf("delete %s: %w", o.Key, err)
			}
		}
		if strings.HasPrefix(o.Key, markers) {
			c.Markers++
		} else {
			c.Objects++
			c.Bytes += o.Size
		}
	}
	return nil
}
