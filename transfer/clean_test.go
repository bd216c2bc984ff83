package transfer_test

import (
	"bytes"
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/transfer"
)

// upload runs src into prefix and writes its manifest as run id.
func upload(t *testing.T, st storage.Store, src, prefix, id string) *transfer.Plan {
	t.Helper()
	ctx := context.Background()
	p, err := transfer.UploadPlan(src, prefix, 5)
	if err != nil {
		t.Fatal(err)
	}
	res, err := transfer.Run(ctx, st, p, transfer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	key, err := transfer.WriteManifest(ctx, st, p, res, id)
	if err != nil || key != transfer.ManifestDir(prefix)+id+".jsonl" {
		t.Fatalf("manifest %q: %v", key, err)
	}
	return p
}

func keys(t *testing.T, st storage.Store) []string {
	t.Helper()
	ks, err := storage.KeysUnder(context.Background(), st, "")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(ks)
	return ks
}

// TestCleanDeletesOnlyWhatManifestsRecord: two uploads into mail/, an
// object of someone else's under it and beside it, one recorded object
// replaced by another writer. clean deletes the recorded, unchanged
// objects and the manifest whose objects are all gone, nothing else.
func TestCleanDeletesOnlyWhatManifestsRecord(t *testing.T) {
	ctx := context.Background()
	for name, st := range map[string]storage.Store{"mem": mem.New(), "embedded": embedded(t)} {
		t.Run(name, func(t *testing.T) {
			put := func(key, body string) {
				if _, err := st.Put(ctx, key, strings.NewReader(body), int64(len(body)), storage.PutOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			put("mail/theirs", "not objbench's")
			put("mail2/theirs", "beside it")
			first := upload(t, st, "gen:3x1KiB", "mail/", "run-1")
			upload(t, st, "gen:2x2KiB", "mail/b/", "run-2") // another upload's manifest is mail/b.objbench-manifest
			upload(t, st, "gen:1x3KiB", "mail/", "run-3")   // replaces file-1 of run-1 with other bytes
			put(transfer.PlanItems(first)[2].Key, strings.Repeat("x", 1024))

			dry, err := transfer.Clean(ctx, st, "mail/", true)
			if err != nil || dry.Deleted != 2 || dry.Changed != 1 || dry.Manifests != 2 {
				t.Fatalf("dry run: %+v %v", dry, err)
			}
			before := keys(t, st)
			c, err := transfer.Clean(ctx, st, "mail/", false)
			if err != nil {
				t.Fatal(err)
			}
			if c.Deleted != 2 || c.Changed != 1 || c.Others < 1 || len(c.Kept) != 1 || c.Kept[0] != "mail.objbench-manifest/run-1.jsonl" {
				t.Errorf("clean: %+v", c)
			}
			after := keys(t, st)
			want := []string{"mail.objbench-manifest/run-1.jsonl", "mail/b.objbench-manifest/run-2.jsonl", "mail/b/file-1", "mail/b/file-2",
				"mail/file-3", "mail/theirs", "mail2/theirs"}
			if strings.Join(after, " ") != strings.Join(want, " ") {
				t.Errorf("after clean:\n%v\nbefore:\n%v\nwant:\n%v", after, before, want)
			}
			if _, err := transfer.Clean(ctx, st, "nothing/", false); err == nil || !strings.Contains(err.Error(), "no objbench manifest") {
				t.Errorf("clean of a prefix without manifests: %v", err)
			}
		})
	}
}

// strayLister lists a key outside the prefix it was asked for, as a
// faulty store or proxy might.
type strayLister struct{ storage.Store }

func (s strayLister) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	if err := s.Store.List(ctx, prefix, fn); err != nil {
		return err
	}
	return fn(storage.ObjectInfo{Key: "elsewhere/important", Size: 1})
}

// TestCleanTrustsNoFaultyListingOrManifest: a listing with a key outside
// the prefix, or a manifest recording one, deletes nothing at all.
func TestCleanTrustsNoFaultyListingOrManifest(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	upload(t, st, "gen:2x1KiB", "mail/", "run-1")
	before := keys(t, st)
	if _, err := transfer.Clean(ctx, strayLister{st}, "mail/", false); !errors.Is(err, storage.ErrListingFault) {
		t.Errorf("a stray listing: %v", err)
	}
	bad := `{"objbench_manifest":1,"run_id":"x","prefix":"mail/","objects":1,"bytes":1}` + "\n" + `{"k":"elsewhere/important","s":1}` + "\n"
	if _, err := st.Put(ctx, "mail.objbench-manifest/x.jsonl", bytes.NewReader([]byte(bad)), int64(len(bad)), storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.Clean(ctx, st, "mail/", false); !errors.Is(err, storage.ErrListingFault) {
		t.Errorf("a manifest naming a key outside the prefix: %v", err)
	}
	if after := keys(t, st); len(after) != len(before)+1 {
		t.Errorf("objects deleted after a fault: %v, before %v", after, before)
	}
}
