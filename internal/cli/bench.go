package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/corpus"
	"github.com/objbench/objbench/units"
	"github.com/objbench/objbench/workload"
)

// benchOptions are the flags shared by run and the one-op commands.
type benchOptions struct {
	target      targetOptions
	size        string
	concurrency string
	duration    time.Duration
	ops         int64
	bytes       string
	objects     int
	prefix      string
	noPrepare   bool
	noCleanup   bool
	rangeSize   string
	mix         string
	fsync       string
	corpus      corpusFlags
	out         string
	outBucket   string // --out s3://BUCKET/PREFIX/
	csv         string
	cosbenchCSV string // run: COSBench's CSV archive layout under this directory
	// deleteDataset: the spec's cleanup deletes its data set (dataset rm)
	deleteDataset bool
	html          string
	maxErrors     int64
	grace         time.Duration
	seed          uint64
	quiet         bool
	cpuProfile    string
	memProfile    string
	linkSpeed     string
	linkBps       float64 // --link-speed, parsed
	rate          string
	arrival       string
	ramp          time.Duration
	maxWorkers    int
	repeat        int
	listen        string // --listen: serve the live view here
	dist          workerOptions
	s3            s3Flags
	opLog         string // --op-log: one JSON line per op
	// plan, when set, makes the workload once the run id is known
	// (objbench replay); the spec runBench is given is then ignored.
	plan func(runID string) (*planned, error)
}

func (o *benchOptions) register(f *pflag.FlagSet, op string) {
	o.target.register(f)
	defSize := "64KiB"
	if op == "list" {
		defSize = "4KiB"
	}
	f.StringVar(&o.size, "size", defSize, "object size: "+units.Units)
	f.StringVarP(&o.concurrency, "concurrency", "c", "8", "workers; a comma list (1,4,16,64) runs one step per value. With --worker, the run's total: "+
		"each process runs its share (-c 16 over 4 processes: 4 each), and --ops/--bytes follow the workers")
	f.DurationVarP(&o.duration, "duration", "d", 0, "how long each step runs (default: 10s for the op commands, 5s for run, when no --ops/--bytes)")
	f.Int64Var(&o.ops, "ops", 0, "stop each step after this many ops (with --worker: the run's total, shared by its processes)")
	f.StringVar(&o.bytes, "bytes", "", "stop each step after moving this many bytes (e.g. 10GiB; KiB and KB differ: see --size)")
	f.IntVar(&o.objects, "objects", 0, "objects to prepare for get/stat/delete/list/mixed (default: 200, at most 1 GiB of them; delete: 1000)")
	f.StringVar(&o.prefix, "prefix", "", "with --no-prepare: read the objects already under this prefix (found by listing)")
	f.BoolVar(&o.noPrepare, "no-prepare", false, "do not write objects first; read those under --prefix")
	f.BoolVar(&o.noCleanup, "no-cleanup", false, "keep the objects this run wrote (under objbench/RUN-ID/)")
	f.StringVar(&o.rangeSize, "range-size", "", "GET reads this many bytes at a random offset (ranged GET; KiB and KB differ: see --size)")
	f.StringVar(&o.fsync, "fsync", "none", "file targets: none (page cache), per-file (fsync each file before its PUT returns) or at-end (one syncfs after each step, in its time)")
	if op != "put" {
		o.corpus.register(f, "prepare")
		f.IntVar(&o.corpus.maxObjects, "max-objects", 0, "with --from-dir/--from-git: prepare at most this many objects (default: all)")
	}
	f.VarP(outFlag{&o.out, &o.outBucket}, "out", "o", "result file (default objbench-results/RUN-ID.json); a directory ending in / holds RUN-ID.json "+
		"(a worker's: RUN-ID/worker-R.json). s3://BUCKET/PREFIX/ uploads it there instead, through the target's endpoint and credentials "+
		"(the bucket is checked before any load, and a result never replaces another); give --out twice to keep a local copy too. "+
		"Every output file (--out, --csv, --html, --op-log...) is checked before the run: a regular file is replaced whole, a symbolic link "+
		"is followed (the file it names is written, the link stays), a device or a pipe (/dev/null, /dev/stdout) is written through, anything else is refused")
	f.StringVar(&o.csv, "csv", "", "also write the table as CSV to this file")
	f.StringVar(&o.html, "html", "", "also write the report as one self-contained HTML page with charts")
	f.Int64Var(&o.maxErrors, "max-errors", 0, "stop the run after this many failed ops (default: never)")
	f.DurationVar(&o.grace, "grace", 10*time.Second, "how long in-flight ops may finish after a step stops issuing")
	f.Uint64Var(&o.seed, "seed", 0, "payload seed (default: random; recorded in the result)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print only the latency/throughput table: no progress, notes, TTFB table, step lines or verdict (the result file has them all)")
	f.StringVar(&o.linkSpeed, "link-speed", "", "network link capacity in bits/s (10G, 25Gbit) for the verdict (default: /sys/class/net/*/speed)")
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a Go CPU profile of objbench itself to this file")
	f.StringVar(&o.memProfile, "memprofile", "", "write a Go heap profile of objbench itself, taken as the last main step ends, to this file")
	_ = f.MarkHidden("memprofile")
	_ = f.MarkHidden("cpuprofile")
	f.StringVar(&o.rate, "rate", "", "open loop: start ops on a fixed schedule, per stream (2000/s; a ramp 100/s..5000/s with --ramp; a comma list runs one step per rate)")
	f.StringVar(&o.arrival, "arrival", "", "with --rate: uniform (evenly spaced, the default) or poisson arrivals")
	f.DurationVar(&o.ramp, "ramp", 0, "with --rate FROM..TO: how long the linear ramp takes")
	f.IntVar(&o.maxWorkers, "max-workers", 0, "with --rate: the most workers the schedule may grow to; a slot finding them all busy is dropped "+
		"(default: the peak rate times --request-timeout, or 10s, capped at 10000; --concurrency workers start at once)")
	f.IntVar(&o.repeat, "repeat", 1, "run each main step this many times (the whole sweep again each time); compare takes the repetitions as its samples (5 or more a side can show a change at p<0.05)")
	f.StringVar(&o.listen, "listen", "", "while the run goes, serve a live page, its event stream and Prometheus /metrics on this address (127.0.0.1:8080; port 0 picks one)")
	o.dist.register(f)
	o.s3.register(f)
	if op == "run" {
		f.StringVar(&o.cosbenchCSV, "cosbench-csv", "", "also write COSBench's CSV archive under this directory: a row in run-history.csv, and in wN-NAME/ the workload CSV, "+
			"the response-time histogram and a timeline per stage")
	}
	registerOpLog(f, &o.opLog)
	if op == "mixed" || op == "run" {
		f.StringVar(&o.mix, "mix", "get=45,put=15,stat=25,delete=10,list=5", "op weights for the mixed workload")
	}
}

func registerOpLog(f *pflag.FlagSet, p *string) {
	f.StringVar(p, "op-log", "", "write one JSON line per op (start, op, key, size, range, status or error, latency, TTFB, worker, step) to this file; "+
		".zst or .gz compresses it. objbench replay replays it, objbench report --op-log rebuilds the tables from it")
}

// parsed holds the flag values that need parsing.
type parsed struct {
	fsync                  workload.FsyncMode
	source                 string // --from-dir/--from-git as a key space source
	size, bytes, rangeSize int64
	conc                   []int
	mix                    []workload.OpWeight
	rates                  []workload.Rate // open loop: a step per rate
	s3                     *workload.S3Options
}

func (o *benchOptions) parse(op string) (parsed, error) {
	var p parsed
	var err error
	if p.size, err = units.ParseSize(o.size); err != nil {
		return p, usagef("--size: %v", err)
	}
	if o.bytes != "" {
		if p.bytes, err = units.ParseSize(o.bytes); err != nil {
			return p, usagef("--bytes: %v", err)
		}
	}
	if o.rangeSize != "" {
		if p.rangeSize, err = units.ParseSize(o.rangeSize); err != nil {
			return p, usagef("--range-size: %v", err)
		}
	}
	if o.linkBps, err = parseLinkSpeed(o.linkSpeed); err != nil {
		return p, err
	}
	if p.conc, err = parseIntList(o.concurrency); err != nil {
		return p, usagef("--concurrency: %v", err)
	}
	if o.duration < 0 || o.ops < 0 || o.objects < 0 || o.maxErrors < 0 {
		return p, usagef("--duration, --ops, --objects and --max-errors must not be negative")
	}
	if p.rates, err = o.parseRates(); err != nil {
		return p, err
	}
	if o.noPrepare && o.prefix == "" {
		return p, usagef("--no-prepare needs --prefix: where the objects to read are")
	}
	if p.fsync, err = workload.ParseFsync(o.fsync); err != nil {
		return p, usagef("--fsync %v", err)
	}
	if p.source, err = o.corpusSource(); err != nil {
		return p, err
	}
	if p.s3, err = o.s3.options(); err != nil {
		return p, err
	}
	switch {
	case op == "mixed" || op == "run":
		p.mix, err = parseMix(o.mix)
	default:
		p.mix = []workload.OpWeight{{Op: op, Weight: 1}}
	}
	if err != nil {
		return p, usagef("--mix: %v", err)
	}
	return p, nil
}

// corpusSource is the key space source --from-dir or --from-git name.
func (o *benchOptions) corpusSource() (string, error) {
	src, err := o.corpus.source()
	switch {
	case err != nil:
		return "", err
	case src == "" && o.corpus.maxObjects > 0:
		return "", usagef("--max-objects needs --from-dir or --from-git (generated objects: --objects)")
	case src != "" && (o.noPrepare || o.objects > 0):
		return "", usagef("--from-dir/--from-git prepare the objects: not with --no-prepare or --objects (use --max-objects)")
	case src != "":
		if err := corpus.Check(context.Background(), src); err != nil {
			return "", inputf("%v", err)
		}
	}
	return src, nil
}

// parseRates reads --rate (a comma list runs a step per rate), --arrival
// and --ramp, and checks --max-workers; none: closed loop.
func (o *benchOptions) parseRates() ([]workload.Rate, error) {
	if o.rate == "" {
		switch {
		case o.arrival != "":
			return nil, usagef("--arrival %s needs --rate", o.arrival)
		case o.ramp != 0:
			return nil, usagef("--ramp %v needs --rate FROM..TO", o.ramp)
		case o.maxWorkers != 0:
			return nil, usagef("--max-workers %d needs --rate (closed loop: use --concurrency)", o.maxWorkers)
		}
		return nil, nil
	}
	if o.maxWorkers < 0 {
		return nil, usagef("--max-workers %d: want at least 1", o.maxWorkers)
	}
	arrival := ""
	if o.arrival != "" {
		var err error
		if arrival, err = workload.ParseArrival(o.arrival); err != nil {
			return nil, usagef("--arrival: %v", err)
		}
	}
	var out []workload.Rate
	for _, f := range strings.Split(o.rate, ",") {
		r, err := workload.ParseRate(f)
		if err != nil {
			return nil, usagef("--rate: %v", err)
		}
		r.Ramp, r.Arrival, r.MaxWorkers = o.ramp, arrival, o.maxWorkers
		var errs []string
		r.Validate(func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) })
		if len(errs) > 0 {
			return nil, usagef("--rate %s: %s", f, strings.Join(errs, "; "))
		}
		out = append(out, r)
	}
	return out, nil
}

func parseIntList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad value %q: want positive whole numbers, like 1,4,16", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseMix(s string) ([]workload.OpWeight, error) {
	var out []workload.OpWeight
	for _, f := range strings.Split(s, ",") {
		op, w, ok := strings.Cut(strings.TrimSpace(f), "=")
		n, err := strconv.Atoi(w)
		if !ok || err != nil || n < 1 {
			return nil, fmt.Errorf("bad entry %q: want op=weight, like get=80,put=20", f)
		}
		out = append(out, workload.OpWeight{Op: op, Weight: n})
	}
	return out, nil
}
