package cli

import (
	"path/filepath"
	"testing"

	"github.com/objbench/objbench/distributed"
)

func TestPlaceResult(t *testing.T) {
	solo, w2 := distributed.Worker{}, distributed.Worker{Rank: 2, Size: 4}
	cases := []struct {
		name, local, bucket string
		wk                  distributed.Worker
		wantLocal, wantKey  string
		wantErr             bool
	}{
		{"default", "", "", solo, filepath.Join("objbench-results", "r1.json"), "", false},
		{"worker default", "", "", w2, filepath.Join("objbench-results", "r1", "worker-2.json"), "", false},
		{"dir", "res/", "", w2, filepath.Join("res", "r1", "worker-2.json"), "", false},
		{"file", "x.json", "", solo, "x.json", "", false},
		// A bucket alone: nothing local.
		{"bucket", "", "s3://b/runs/", w2, "", "runs/r1/worker-2.json", false},
		{"bucket root", "", "s3://b/", solo, "", "r1.json", false},
		{"bucket and copy", "copies/", "s3://b/runs/", w2, filepath.Join("copies", "r1", "worker-2.json"), "runs/r1/worker-2.json", false},
		{"no slash", "", "s3://b/runs", solo, "", "", true},
		{"no bucket", "", "s3:///runs/", solo, "", "", true},
	}
	for _, c := range cases {
		p, err := placeResult(c.local, c.bucket, "r1", c.wk)
		if (err != nil) != c.wantErr || err == nil && (p.local != c.wantLocal || p.key != c.wantKey) {
			t.Errorf("%s: local %q key %q err %v; want %q %q (error %v)", c.name, p.local, p.key, err, c.wantLocal, c.wantKey, c.wantErr)
		}
		if err == nil && c.bucket != "" && p.fallback == "" {
			t.Errorf("%s: no fallback for a failed upload", c.name)
		}
	}
}

func TestOutFlagTakesOneOfEach(t *testing.T) {
	var local, bucket string
	f := outFlag{&local, &bucket}
	if err := f.Set("s3://b/p/"); err != nil {
		t.Fatal(err)
	}
	if err := f.Set("copies/"); err != nil {
		t.Fatal(err)
	}
	if local != "copies/" || bucket != "s3://b/p/" || f.String() != "s3://b/p/,copies/" {
		t.Errorf("local %q bucket %q (%s)", local, bucket, f.String())
	}
	if err := f.Set("s3://c/p/"); err == nil {
		t.Error("a second bucket was taken")
	}
	if err := f.Set("other/"); err == nil {
		t.Error("a second local place was taken")
	}
}
