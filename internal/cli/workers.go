package cli

import (
	"bytes"
	"context"
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
			return wk, "", "", inputf("%v", err)
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

// resultPlace says where a run's result goes: a local path, and when
// --out names a bucket (s3://BUCKET/PREFIX/), the key it is uploaded to.
type resultPlace struct {
	local  string
	bucket string
	key    string
}

// placeResult turns --out into the result's place: "" is
// objbench-results/RUN-ID.json (a worker: objbench-results/RUN-ID/worker-R.json);
// a directory (ending in /) holds RUN-ID.json, or RUN-ID/worker-R.json.
func placeResult(out, runID string, wk distributed.Worker) (resultPlace, error) {
	name := runID + ".json"
	if !wk.Solo() {
		name = path.Join(runID, fmt.Sprintf("worker-%d.json", wk.Rank))
	}
	if strings.HasPrefix(out, "s3://") {
		u, err := url.Parse(out)
		if err != nil || u.Host == "" || !strings.HasSuffix(out, "/") {
			return resultPlace{}, usagef("--out %s: want s3://BUCKET/PREFIX/ (ending in /)", out)
		}
		return resultPlace{local: filepath.Join("objbench-results", filepath.FromSlash(name)), bucket: u.Host,
			key: strings.TrimPrefix(u.Path, "/") + name}, nil
	}
	switch {
	case out == "":
		return resultPlace{local: filepath.Join("objbench-results", filepath.FromSlash(name))}, nil
	case strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator)):
		return resultPlace{local: filepath.Join(out, filepath.FromSlash(name))}, nil
	}
	return resultPlace{local: out}, nil
}

// upload copies the written result to its bucket, through the target's
// endpoint and credentials.
func (p resultPlace) upload(ctx context.Context, tgt *run.Target, res *result.Run) (string, error) {
	if p.bucket == "" {
		return "", nil
	}
	st, err := tgt.Bucket(ctx, p.bucket, 1)
	if err != nil {
		return "", fmt.Errorf("--out s3://%s/: %w", p.bucket, err)
	}
	var buf bytes.Buffer
	if err := result.Encode(&buf, res); err != nil {
		return "", err
	}
	if _, err := st.Put(ctx, p.key, bytes.NewReader(buf.Bytes()), int64(buf.Len()), storage.PutOptions{}); err != nil {
		return "", fmt.Errorf("--out: upload the result to s3://%s/%s: %w", p.bucket, p.key, err)
	}
	return "s3://" + p.bucket + "/" + p.key, nil
}
