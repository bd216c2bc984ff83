package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/distributed"
	"github.com/objbench/objbench/result"
	"github.com/objbench/objbench/run"
	"github.com/objbench/objbench/storage"
)

// workerOptions are the flags that make a process one worker of a run
// split across processes.
type workerOptions struct {
	worker       string
	total        int
	runID        string
	rendezvousTO time.Duration
	maxSkew      time.Duration
}

func (w *workerOptions) register(f *pflag.FlagSet) {
	f.StringVar(&w.worker, "worker", "", "this process is worker RANK/SIZE of a run split across processes (0/4 ... 3/4), or auto: "+
		"the rank and size the launcher sets (mpirun, srun, a Kubernetes Indexed Job with --workers-total)")
	f.IntVar(&w.total, "workers-total", 0, "with --worker auto: how many workers there are, where the launcher does not say (a Kubernetes Indexed Job's completions)")
	f.StringVar(&w.runID, "run-id", "", "the run's id, the same for every worker (default: the launcher's job id, else a new one)")
	f.DurationVar(&w.rendezvousTO, "rendezvous-timeout", 2*time.Minute, "workers: how long to wait for every worker before each step; a missing one fails the run")
	f.DurationVar(&w.maxSkew, "max-skew", 250*time.Millisecond, "workers: refuse to start when the workers' clocks (against the store's) disagree by more")
}

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// resolve finds the worker and the run id: a local run without --worker.
func (w *workerOptions) resolve(env Env) (distributed.Worker, string, string, error) {
	var wk distributed.Worker
	engine := ""
	var err error
	switch w.worker {
	case "":
		if w.total != 0 {
			return wk, "", "", usagef("--workers-total needs --worker auto")
		}
	case "auto":
		if wk, engine, err = distributed.FromEnv(env.Getenv, w.total); err != nil {
			switch {
			case errors.Is(err, distributed.ErrNoTotal):
				return wk, "", "", inputf("--worker auto: %v: give --workers-total N", err)
			case errors.Is(err, distributed.ErrNoEngine):
				return wk, "", "", inputf("--worker auto: %v (--worker RANK/SIZE)", err)
			}
			return wk, "", "", inputf("--worker auto (--workers-total %d): %v", w.total, err)
		}
	default:
		if wk, err = distributed.Parse(w.worker); err != nil {
			return wk, "", "", usagef("--worker: %v", err)
		}
		engine = "--worker"
	}
	id := w.runID
	if id == "" && !wk.Solo() {
		if id = distributed.JobID(env.Getenv); id == "" {
			return wk, "", "", usagef("--worker %s: the workers need one run id: give --run-id (no launcher job id in SLURM_JOB_ID, PMIX_NAMESPACE or OBJBENCH_RUN_ID)", w.worker)
		}
	}
	if id != "" && !runIDPattern.MatchString(id) {
		return wk, "", "", usagef("--run-id %q: use letters, digits, '.', '-' and '_' (at most 128)", id)
	}
	return wk, engine, id, nil
}

// resolveForPlan is resolve for planning a worker's share (a dry run),
// which needs no run id.
func (w workerOptions) resolveForPlan(env Env) (distributed.Worker, string, string, error) {
	if w.runID == "" && w.worker != "" {
		w.runID = "dry-run"
	}
	return w.resolve(env)
}

// outFlag is --out: a local path, s3://BUCKET/PREFIX/, or both (the flag
// given twice). A result that goes to a bucket is written locally only when
// a local place is named too: a container with a read-only root file system
// writes nothing it was not asked to.
type outFlag struct{ local, bucket *string }

func (f outFlag) Set(v string) error {
	p := f.local
	if strings.HasPrefix(v, "s3://") {
		p = f.bucket
	}
	if *p != "" {
		return fmt.Errorf("%s and %s: give at most one local place and one s3://BUCKET/PREFIX/", *p, v)
	}
	*p = v
	return nil
}

func (f outFlag) String() string {
	if f.local == nil || f.bucket == nil { // pflag's zero value, for the default
		return ""
	}
	return strings.Trim(*f.bucket+","+*f.local, ",")
}

func (outFlag) Type() string { return "string" }

// resultPlace says where a run's result goes: a local path, a key in a
// bucket (--out s3://BUCKET/PREFIX/), or both.
type resultPlace struct {
	out    string // --out s3://BUCKET/PREFIX/
	local  string
	bucket string
	key    string
	st     storage.Store // the bucket, once check opened it
	// fallback is where a result kept only in the bucket is written
	// when its upload fails.
	fallback string
}

// placeResult turns --out into the result's place. With no bucket, local
// "" is objbench-results/RUN-ID.json (a worker: objbench-results/RUN-ID/worker-R.json);
// a directory (ending in /) holds RUN-ID.json, or RUN-ID/worker-R.json.
// With a bucket the result is uploaded to PREFIX/RUN-ID.json (a worker's
// to PREFIX/RUN-ID/worker-R.json), and written locally only where local
// names a place.
func placeResult(local, bucket, runID string, wk distributed.Worker) (resultPlace, error) {
	name := runID + ".json"
	if !wk.Solo() {
		name = path.Join(runID, fmt.Sprintf("worker-%d.json", wk.Rank))
	}
	p := resultPlace{fallback: filepath.Join("objbench-results", filepath.FromSlash(name))}
	if bucket != "" {
		u, err := url.Parse(bucket)
		if err != nil || u.Host == "" || !strings.HasSuffix(bucket, "/") {
			return p, usagef("--out %s: want s3://BUCKET/PREFIX/ (ending in /)", bucket)
		}
		p.out, p.bucket, p.key = bucket, u.Host, strings.TrimPrefix(u.Path, "/")+name
		if local == "" {
			return p, nil
		}
	}
	switch {
	case local == "":
		p.local = p.fallback
	case strings.HasSuffix(local, "/") || strings.HasSuffix(local, string(filepath.Separator)):
		p.local = filepath.Join(local, filepath.FromSlash(name))
	default:
		p.local = local
	}
	return p, nil
}

// where names the bucket's copy (s3://BUCKET/KEY).
func (p *resultPlace) where() string { return "s3://" + p.bucket + "/" + p.key }

// check finds, before any load, that the result can be uploaded: the
// bucket exists, takes (and deletes) a probe of this process's own under
// the results prefix, and holds no result at the key yet.
func (p *resultPlace) check(ctx context.Context, tgt *run.Target) error {
	if p.bucket == "" {
		return nil
	}
	st, err := tgt.Bucket(ctx, p.bucket, 1)
	if err != nil {
		return inputf("--out %s: %v", p.out, err)
	}
	if _, err := result.CheckUpload(ctx, st, p.key); err != nil {
		why := "the result could not be uploaded there"
		switch {
		case errors.Is(err, storage.ErrBucketNotFound):
			why = "bucket " + p.bucket + " does not exist: create it, or name another"
		case errors.Is(err, storage.ErrAccessDenied):
			why = "these credentials may not write and delete in bucket " + p.bucket
		}
		return inputf("--out %s: %s (checked before any load): %v", p.out, why, err)
	}
	p.st = st
	return nil
}

// upload copies the result to its bucket, through the target's endpoint
// and credentials, never over another object. It returns where the result
// went.
func (p *resultPlace) upload(ctx context.Context, res *result.Run) (string, error) {
	if p.st == nil {
		return "", nil
	}
	if err := result.Upload(ctx, p.st, p.key, res); err != nil {
		return "", fmt.Errorf("--out: upload the result to %s: %w", p.where(), err)
	}
	return p.where(), nil
}
