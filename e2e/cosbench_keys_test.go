package e2e_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/workload"
)

// COSBench's key layout (--cosbench-keys): COSBench's names without
// objbench's namespace, on the embedded server and MinIO.

// TestCOSBenchKeysWriteWhatCOSBenchWrites: with --cosbench-keys the store
// holds what COSBench would write for the same file, checked object by
// object against the list COSBench's rules make: in each container
// mycontainers<N>... here ck<N> (cprefix), the keys myobjects<N>
// (dev/cosbench-driver/src/com/intel/cosbench/driver/util/Defaults.java,
// generator/NumericNameGenerator.java: prefix + number + suffix, nothing
// before), whole-KB sizes, letters and the MD5 trailer (hashCheck:
// generator/RandomInputStream.java), and nothing else. A second run of the
// same prepare refuses to start (it would write over them); a cleanup run
// deletes none of them (it wrote none).
func TestCOSBenchKeysWriteWhatCOSBenchWrites(t *testing.T) {
	prepare := cosDoc("s3", `
    <workstage name="init"><work type="init" workers="1" config="cprefix=ck;containers=r(1,2)" /></workstage>
    <workstage name="prepare"><work type="prepare" workers="2" config="cprefix=ck;containers=r(1,2);objects=r(1,5);sizes=u(1,3)KB;hashCheck=true" /></workstage>
    <workstage name="main"><work name="main" workers="2" totalOps="20">
      <operation type="write" config="cprefix=ck;containers=u(1,2);objects=u(6,8);sizes=c(2)KB;hashCheck=true" /></work></workstage>`)
	cleanup := cosDoc("s3", `
    <workstage name="cleanup"><work type="cleanup" workers="1" config="cprefix=ck;containers=r(1,2);objects=r(1,8)" /></workstage>`)
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			r, _ := s.mustRun(t, "prep", prepare, "--cosbench-keys")
			if !strings.Contains(r.stderr, "COSBench's key layout (--cosbench-keys): objects are named as COSBench names them") ||
				!strings.Contains(r.stderr, "writes its objects under COSBench's names (--cosbench-keys)") || strings.Contains(r.stderr, "writes under objbench/") {
				t.Errorf("the run did not say what it does with keys:\n%s", r.stderr)
			}
			stored := map[string]map[string]int64{}
			for _, b := range []string{"ck1", "ck2"} {
				stored[b] = s.objects(t, b)
				for key, size := range stored[b] {
					n, err := strconv.Atoi(strings.TrimPrefix(key, "myobjects"))
					switch {
					case !strings.HasPrefix(key, "myobjects") || err != nil || strconv.Itoa(n) != key[len("myobjects"):] || n < 1 || n > 8:
						t.Errorf("%s/%s is not a name COSBench gives this workload's objects", b, key)
					case n <= 5 && size != 1000 && size != 2000 && size != 3000, n > 5 && size != 2000:
						t.Errorf("%s/%s has %d bytes", b, key, size)
					}
				}
				for n := 1; n <= 5; n++ {
					key := "myobjects" + strconv.Itoa(n)
					if _, ok := stored[b][key]; !ok {
						t.Errorf("%s/%s was not written", b, key)
						continue
					}
					var body bytes.Buffer
					if _, err := s.bucket(t, b).Get(context.Background(), key, storage.GetOptions{}, &body); err != nil {
						t.Fatal(err)
					}
					d := body.Bytes()
					if !lettersOnly(d[:len(d)-40]) || !bytes.Equal(d[len(d)-40:], cosbenchTrailer(d[:len(d)-40])) {
						t.Errorf("%s/%s: not letters and COSBench's trailer (ends %q)", b, key, d[len(d)-40:])
					}
				}
			}
			again, _ := s.run(t, "prep", prepare, "--cosbench-keys")
			if again.code == 0 || !strings.Contains(again.stderr, "already holds") || !strings.Contains(again.stderr, "objbench never writes over an object it did not write") {
				t.Errorf("a second prepare over the first's objects: exit %d:\n%s", again.code, again.stderr)
			}
			r, res := s.run(t, "clean", cleanup, "--cosbench-keys")
			if r.code != 0 || res == nil {
				t.Fatalf("cleanup run: exit %d:\n%s", r.code, r.stderr)
			}
			for _, b := range []string{"ck1", "ck2"} {
				if got := s.objects(t, b); len(got) != len(stored[b]) {
					t.Errorf("%s: a cleanup that wrote nothing left %d of %d objects", b, len(got), len(stored[b]))
				}
			}
		})
	}
}

// TestCOSBenchKeysReadOthersData: objects another client prepared under
// COSBench's names (its letters, its MD5 trailer) are read by objbench
// with --cosbench-keys and checked by their trailer, as COSBench's Reader
// checks them (dev/cosbench-driver/src/com/intel/cosbench/driver/operator/
// Reader.java); they are never deleted, by a main-stage delete (fails as
// foreign_object, as no request is sent) or by cleanup, while the objects
// the run wrote are; a workload that would write over them does not start.
func TestCOSBenchKeysReadOthersData(t *testing.T) {
	doc := cosDoc("s3", `
    <workstage name="main"><work name="main" workers="2" totalOps="200" afr="1000000">
      <operation type="read" ratio="70" config="cprefix=cko;containers=c(1);objects=u(1,10);hashCheck=true" />
      <operation type="write" ratio="20" config="cprefix=cko;containers=c(1);objects=u(11,12);sizes=c(3)KB;hashCheck=true" />
      <operation type="delete" ratio="10" config="cprefix=cko;containers=c(1);objects=u(1,12)" /></work></workstage>
    <workstage name="cleanup"><work type="cleanup" workers="1" config="cprefix=cko;containers=r(1,1);objects=r(1,12)" /></workstage>
    <workstage name="dispose"><work type="dispose" workers="1" config="cprefix=cko;containers=r(1,1)" /></workstage>`)
	over := cosDoc("s3", `
    <workstage name="main"><work name="main" workers="1" totalOps="5">
      <operation type="write" config="cprefix=cko;containers=c(1);objects=u(1,3);sizes=c(1)KB" /></work></workstage>`)
	theirs := map[string][]byte{"keep/me": []byte("precious")}
	for n := 1; n <= 10; n++ {
		d := bytes.Repeat([]byte{'a' + byte(n)}, 1000*n)
		theirs["myobjects"+strconv.Itoa(n)] = append(d, cosbenchTrailer(d)...)
	}
	for _, s := range cosStores(t) {
		t.Run(s.name, func(t *testing.T) {
			b := s.bucket(t, "cko1")
			if err := b.CreateBucket(context.Background()); err != nil {
				t.Fatal(err)
			}
			for k, v := range theirs {
				if _, err := b.Put(context.Background(), k, bytes.NewReader(v), int64(len(v)), storage.PutOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			r, res := s.mustRun(t, "others", doc, "--cosbench-keys")
			gets, okGets, _ := mainOps(res, "GET")
			dels, okDels, _ := mainOps(res, "DELETE")
			var foreignDels int64
			for _, st := range res.Steps {
				for _, sr := range st.Streams {
					for _, tot := range sr.Totals {
						if st.Kind == result.KindMain && tot.Op == "DELETE" {
							foreignDels = tot.Errors[workload.ClassForeign]
						}
					}
				}
			}
			if gets == 0 || okGets != gets || dels == 0 || foreignDels == 0 || okDels+foreignDels != dels {
				t.Errorf("%d GETs (%d ok), %d DELETEs (%d ok, %d of others' objects refused)", gets, okGets, dels, okDels, foreignDels)
			}
			got := s.objects(t, "cko1")
			if len(got) != len(theirs) {
				t.Errorf("the bucket holds %v, want the other client's %d objects alone", got, len(theirs))
			}
			for k, v := range theirs {
				var body bytes.Buffer
				if _, err := b.Get(context.Background(), k, storage.GetOptions{}, &body); err != nil || !bytes.Equal(body.Bytes(), v) {
					t.Errorf("%s changed or went (%v)", k, err)
				}
			}
			if !res.CleanedUp || !strings.Contains(r.stdout+r.stderr, "kept bucket cko1: this run did not create it") {
				t.Errorf("cleaned up %v:\n%s", res.CleanedUp, r.stdout)
			}
			r, _ = s.run(t, "over", over, "--cosbench-keys")
			if r.code == 0 || !strings.Contains(r.stderr, "bucket cko1 already holds 3 of the objects this workload writes (first myobjects1)") {
				t.Errorf("writes over the other client's objects: exit %d:\n%s", r.code, r.stderr)
			}
		})
	}
}
