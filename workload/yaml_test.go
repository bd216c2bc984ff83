package workload_test

import (
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/workload"
)

func decodeOK(t *testing.T, file, text string) workload.Spec {
	t.Helper()
	sp, _, err := workload.Decode(file, []byte(text))
	if err != nil {
		t.Fatalf("decode:\n%v", err)
	}
	return sp
}

func TestYAMLStreamsSweepsAndShorthands(t *testing.T) {
	sp := decodeOK(t, "w.yaml", `name: w
stages:
  - kind: init
    buckets: [a, "b-{1..2}"]
  - kind: prepare
    concurrency: 8
    objects: {buckets: "b-{1..2}", prefix: p/, index: "r(1,10)"}
    size: 4KiB
  - name: sweep
    kind: main
    delay: 2s
    streams:
      - concurrency: [1, 4, 16]
        duration: 10s
        ops: {read: 80, write: 20}
        objects: {buckets: "b-{1..2}", prefix: p/, index: "u(1,10)"}
        size: [4KiB, 1MiB]
      - name: lister
        workers: 2
        total_ops: 5
        ops: {list: 100}
`)
	if len(sp.Stages) != 4 || sp.Stages[3].Kind != result.KindDelay || sp.Stages[3].Delay != 2*time.Second {
		t.Fatalf("stages %+v; want init, prepare, main and the main's delay", sp.Stages)
	}
	if b := sp.Stages[0].Streams[0].Objects.Buckets; strings.Join(b, ",") != "a,b-1,b-2" {
		t.Errorf("init buckets %v", b)
	}
	prep := sp.Stages[1].Streams[0]
	if prep.Name != "prepare" || prep.Size != 4096 || prep.Objects.Index.String() != "r(1,10)" || prep.ConcurrencyAt(0) != 8 {
		t.Errorf("the one-stream shorthand gave %+v", prep)
	}
	main := sp.Stages[2]
	if main.Steps() != 3 || main.Streams[0].Name != "sweep-1" || main.Streams[1].ConcurrencyAt(2) != 2 {
		t.Errorf("main: %d steps, streams %q, %q", main.Steps(), main.Streams[0].Name, main.Streams[1].Name)
	}
	s2 := main.Streams[0].At(2)
	if s2.ConcurrencyAt(0) != 16 || s2.Sizes().Min != 1<<20 || main.StepLabel(1) != "size=1 MiB" {
		t.Errorf("step 3 of the sweep: concurrency %d, size %d, step 2 label %q", s2.ConcurrencyAt(0), s2.Sizes().Min, main.StepLabel(1))
	}
	if m := main.Streams[0].Mix; len(m) != 2 || m[0].Op != workload.OpGet || m[1].Op != workload.OpPut || !main.Streams[0].Percent {
		t.Errorf("mix %+v", m)
	}
}

func TestYAMLProblemsComeAllAtOnceWithLines(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"unknown fields and a typo", `stages:
  - kind: main
    duraton: 1s
    ops: {read: 100}
    objects: {prefix: x/, count: 1, colour: red}
`, []string{`f.yaml:3: unknown field "duraton" in a stage (did you mean "duration"?)`, `f.yaml:5: unknown field "colour" in objects`, "f.yaml:2: stage 1 (main) stream 1 (main): no bound"}},
		{"ratios, sizes and what nobody prepared", `stages:
  - kind: main
    duration: 1s
    ops:
      read: 50
      stat: 30
    objects: {prefix: none/}
    range_size: -4
`, []string{"f.yaml:2: stage 1 (main) stream 1 (main): operation ratios sum to 80, want 100",
			`f.yaml:5: stage 1 (main) stream 1 (main): reads objects under "none/", but none exist there`, `f.yaml:8: range_size: bad size "-4"`}},
		{"selector with commas in a flow mapping", `stages:
  - kind: prepare
    objects: {prefix: a/, index: r(1,10)}
`, []string{"quote", `"u(1,10)"`}},
		{"bad values", `stages:
  - kind: sideways
    streams:
      - ops: {fly: 100}
        concurrency: [4, 0]
        duration: soon
        rate: fast/s
        arrival: bursty
`, []string{`unknown kind "sideways"`, `f.yaml:4: unknown operation "fly"`, "f.yaml:5: concurrency: 0 must be at least 1",
			`f.yaml:6: duration: "soon" is not a duration`, `f.yaml:7: rate: bad rate "fast/s"`}},
		{"two documents", "stages: []\n---\nstages: []\n", []string{"f.yaml:2: more than one YAML document"}},
		{"not a mapping", "- a\n- b\n", []string{"the workload must be a mapping of fields"}},
		{"syntax", "stages: [\n", []string{"f.yaml:"}},
		{"duplicate field", "stages: []\nstages: []\n", []string{`f.yaml:2: field "stages" appears twice`}},
		{"profile and stages", "profile: {kind: ai train}\nstages: []\n", []string{"f.yaml:2: stages and a profile"}},
		{"unknown profile", "profile:\n  kind: ai infer\n  model: x\n", []string{`f.yaml:2: profile kind "ai infer": want one of ai train, ai checkpoint, ai lake`}},
		{"invalid ratio and policy", `stages:
  - kind: main
    on_error: panic
    max_error_ratio: 150%
    duration: 1s
    ops: {write: 101}
`, []string{`on_error "panic"`, "150%", "ratio of put is 101"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := workload.Decode("f.yaml", []byte(c.text))
			if err == nil {
				t.Fatal("decoded without a complaint")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("missing %q in:\n%v", w, err)
				}
			}
		})
	}
}

func TestYAMLStorageAndPolicy(t *testing.T) {
	sp := decodeOK(t, "s.yaml", `storage: {endpoint: "http://h:9000", region: r1, addressing: virtual, timeout: 5s}
stages:
  - kind: main
    max_error_ratio: 0.05
    duration: 1s
    ops: {write: 100}
    objects: {prefix: w/}
    size: 1KiB
    compress: "3:1"
    verify: yes
`)
	st := sp.Storage
	if st.Endpoint != "http://h:9000" || st.Region != "r1" || st.Addressing != "virtual" || st.Timeout != 5*time.Second {
		t.Errorf("storage %+v", st)
	}
	s := sp.Stages[0]
	if s.OnError == nil || s.OnError.MaxErrorRatio != 0.05 || s.Streams[0].Data.Compress != 3 || !s.Streams[0].Data.Verify {
		t.Errorf("policy %+v, data %+v", s.OnError, s.Streams[0].Data)
	}
}

func TestYAMLCorpusSourceAndFsyncModes(t *testing.T) {
	sp := decodeOK(t, "mail.yaml", `name: mail
stages:
  - kind: prepare
    concurrency: 4
    fsync: at-end
    objects: {prefix: mail/, source: "git:/srv/inbox/0.git", count: 1000}
  - kind: main
    total_ops: 100
    fsync: per-file
    ops: {read: 80, write: 10, delete: 10}
    objects: {prefix: mail/}
    size: 4KiB
`)
	prep, main := sp.Stages[0].Streams[0], sp.Stages[1].Streams[0]
	if prep.Objects.Source != "git:/srv/inbox/0.git" || prep.Objects.Count != 1000 || !prep.SyncAtEnd || prep.Fsync {
		t.Errorf("prepare stream: %+v", prep)
	}
	if !main.Fsync || main.SyncAtEnd || workload.FsyncOf(main) != workload.FsyncPerFile {
		t.Errorf("main stream fsync %v, at end %v", main.Fsync, main.SyncAtEnd)
	}

	_, _, err := workload.Decode("bad.yaml", []byte(`name: bad
stages:
  - kind: prepare
    objects: {prefix: a/, source: "tar:/x"}
  - kind: prepare
    objects: {prefix: b/, source: "dir:/x", index: "r(1,5)"}
  - kind: main
    total_ops: 10
    verify: true
    fsync: sometimes
    ops: {read: 100}
    objects: {prefix: c/, source: "dir:/y"}
`))
	for _, want := range []string{"bad.yaml:3", "tar:/x", "bad.yaml:5", "no index", "fsync", "sometimes", "verify: objects from dir:/y"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("problems do not mention %q:\n%v", want, err)
		}
	}
}

// A workload file may name a profile instead of stages: its kind and its
// options, as the profile's command takes them.
func TestYAMLProfile(t *testing.T) {
	sp, _, err := workload.Decode("f.yaml", []byte("name: trial\nprofile:\n  kind: ai   train\n  model: unet3d\n  accelerators: 8\n  generate: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	pr := sp.Profile
	if pr == nil || pr.Kind != "ai train" || pr.Options["model"] != "unet3d" || pr.Options["accelerators"] != "8" || pr.Options["generate"] != "true" ||
		len(pr.Options) != 3 || pr.Pos.Line != 3 || len(sp.Stages) != 0 {
		t.Errorf("profile %+v, %d stages", pr, len(sp.Stages))
	}
}
