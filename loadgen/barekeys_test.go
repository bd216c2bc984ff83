package loadgen_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/objbench/objbench/loadgen"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/mem"
	"github.com/objbench/objbench/workload"
)

// condStore honours If-None-Match: * as S3 does (the mem store ignores
// it); before, when set, runs once before the first PUT of its key (another
// client writing it meanwhile), and noAnswer keys are stored but answered
// with a timeout.
type condStore struct {
	storage.Store
	mu       sync.Mutex
	before   map[string]func()
	noAnswer map[string]bool
}

func (s *condStore) Put(ctx context.Context, key string, body io.Reader, size int64, o storage.PutOptions) (storage.ObjectInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.before[key]; f != nil {
		delete(s.before, key)
		f()
	}
	if o.IfNoneMatch == "*" {
		if _, err := s.Store.Stat(ctx, key); err == nil {
			return storage.ObjectInfo{}, &storage.OpError{Op: "put", Key: key, Err: storage.ErrPreconditionFailed}
		}
	}
	info, err := s.Store.Put(ctx, key, body, size, o)
	if err == nil && s.noAnswer[key] {
		return info, &storage.OpError{Op: "put", Key: key, Err: context.DeadlineExceeded}
	}
	return info, err
}

func putString(t *testing.T, st storage.Store, key, body string) {
	t.Helper()
	if _, err := st.Put(context.Background(), key, strings.NewReader(body), int64(len(body)), storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
}

func contents(t *testing.T, st storage.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, k := range keys(t, st) {
		var b bytes.Buffer
		if _, err := st.Get(context.Background(), k, storage.GetOptions{}, &b); err != nil {
			t.Fatal(err)
		}
		out[k] = b.String()
	}
	return out
}

// bareSpec is a COSBench workload in COSBench's key layout: prepare
// myobjects1..4, a main stage reading, deleting and writing, cleanup of
// 1..8.
func bareSpec(t *testing.T, mix ...workload.OpWeight) workload.Spec {
	t.Helper()
	sel := func(s string) *workload.Selector {
		v, err := workload.ParseSelector(s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	ks := func(s string) workload.KeySpace { return workload.KeySpace{Prefix: "myobjects", Index: sel(s)} }
	for i := range mix {
		o := ks(mix[i].Op[strings.Index(mix[i].Op, " ")+1:])
		mix[i].Op, mix[i].Objects = mix[i].Op[:strings.Index(mix[i].Op, " ")], &o
	}
	return workload.Spec{Source: &workload.Source{File: "c.xml", Format: "cosbench"}, BareKeys: true, Stages: []workload.Stage{
		{Name: "prepare", Kind: workload.KindPrepare, Streams: []workload.Stream{{Name: "p", Concurrency: []int{2}, Objects: ks("r(1,4)"), Size: 100}}},
		{Name: "main", Kind: workload.KindMain, Streams: []workload.Stream{{Name: "m", Concurrency: []int{4}, Bounds: workload.Bounds{Ops: 400},
			Objects: ks("u(1,8)"), Size: 100, Mix: mix}}},
		{Name: "cleanup", Kind: workload.KindCleanup, Streams: []workload.Stream{{Name: "c", Concurrency: []int{2}, Objects: ks("r(1,8)")}}},
	}}
}

func bareConfig(t *testing.T, st storage.Store, sp workload.Spec) loadgen.Config {
	cfg := config(t, st, sp)
	cfg.BareKeys = true
	return cfg
}

// TestCOSBenchKeysTouchOnlyTheRunsObjects: in COSBench's key layout the
// run reads objects it found (myobjects7 and 8, another client's), but
// neither overwrites nor deletes them: a main-stage delete of one fails
// as foreign_object without a request, cleanup deletes only what the run
// wrote, and the store ends as it began.
func TestCOSBenchKeysTouchOnlyTheRunsObjects(t *testing.T) {
	st := &condStore{Store: mem.New()}
	putString(t, st.Store, "myobjects7", "theirs 7")
	putString(t, st.Store, "myobjects8", "theirs 8")
	putString(t, st.Store, "other/x", "theirs x")
	before := contents(t, st.Store)
	sp := bareSpec(t, workload.OpWeight{Op: "get u(1,8)", Weight: 50}, workload.OpWeight{Op: "delete u(1,8)", Weight: 25},
		workload.OpWeight{Op: "put u(5,6)", Weight: 25})
	out, err := loadgen.Run(context.Background(), bareConfig(t, st, sp))
	if err != nil {
		t.Fatal(err)
	}
	if after := contents(t, st.Store); len(after) != len(before) || after["myobjects7"] != "theirs 7" || after["myobjects8"] != "theirs 8" || after["other/x"] != "theirs x" {
		t.Errorf("the store holds %v after the run, want %v", after, before)
	}
	if p := total(t, out.Steps[0], "PUT"); p.OK != 4 {
		t.Errorf("prepare wrote %d of myobjects1..4", p.OK)
	}
	del := total(t, out.Steps[1], "DELETE")
	if del.Errors[workload.ClassForeign] == 0 || del.OK == 0 {
		t.Errorf("main deletes: %d ok, errors %v; want some of the run's objects deleted and the others' refused", del.OK, del.Errors)
	}
	if g := total(t, out.Steps[1], "GET"); g.OK == 0 {
		t.Errorf("no GET found an object: %+v", g)
	}
	if !out.CleanedUp || !slices.ContainsFunc(out.Steps[2].Notes, func(n string) bool { return strings.Contains(n, "deleted only the objects this run wrote") }) {
		t.Errorf("cleaned up %v, notes %q", out.CleanedUp, out.Steps[2].Notes)
	}
}

// TestCOSBenchKeysRefuseToWriteOverOthers: a workload that would write
// over an object already there does not start; one that appears under a
// key the run writes after it started is not replaced (the write is made
// only where the key is free) and stays after cleanup.
func TestCOSBenchKeysRefuseToWriteOverOthers(t *testing.T) {
	st := &condStore{Store: mem.New()}
	putString(t, st.Store, "myobjects2", "theirs 2")
	sp := bareSpec(t, workload.OpWeight{Op: "get u(1,4)", Weight: 100})
	if _, err := loadgen.Run(context.Background(), bareConfig(t, st, sp)); err == nil ||
		!strings.Contains(err.Error(), "already holds 1 of the objects this workload writes (first myobjects2)") {
		t.Errorf("a run over another's object: %v", err)
	}
	if got := contents(t, st.Store); len(got) != 1 || got["myobjects2"] != "theirs 2" {
		t.Errorf("the refused run changed the store: %v", got)
	}

	st = &condStore{Store: mem.New(), before: map[string]func(){}}
	st.before["myobjects3"] = func() { putString(t, st.Store, "myobjects3", "theirs 3") }
	out, err := loadgen.Run(context.Background(), bareConfig(t, st, sp))
	if err != nil {
		t.Fatal(err)
	}
	if p := total(t, out.Steps[0], "PUT"); p.OK != 3 || p.Errors[workload.ClassForeign] != 1 {
		t.Errorf("prepare: %d PUTs ok, errors %v; want 3 and myobjects3 refused", p.OK, p.Errors)
	}
	if got := contents(t, st.Store); len(got) != 1 || got["myobjects3"] != "theirs 3" {
		t.Errorf("after the run the store holds %v, want myobjects3 alone, theirs", got)
	}
}

// TestCOSBenchKeysNeverDeleteWhatTheyCannotProve: a write that got no
// answer may have stored its object, but the run cannot prove it did: the
// object is not deleted, and the run says it did not clean up.
func TestCOSBenchKeysNeverDeleteWhatTheyCannotProve(t *testing.T) {
	st := &condStore{Store: mem.New(), noAnswer: map[string]bool{"myobjects4": true}}
	sp := bareSpec(t, workload.OpWeight{Op: "get u(1,3)", Weight: 100})
	out, err := loadgen.Run(context.Background(), bareConfig(t, st, sp))
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	if got := keys(t, st.Store); !slices.Equal(got, []string{"myobjects4"}) {
		t.Errorf("left %v, want myobjects4 alone", got)
	}
	if out.CleanedUp || !strings.Contains(out.CleanupNote, "1 writes got no answer, so their objects may be stored (first myobjects4)") {
		t.Errorf("cleaned up %v, note %q", out.CleanedUp, out.CleanupNote)
	}
}
