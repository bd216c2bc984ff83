package transfer

// WithSpillRun makes o keep at most n bytes of what an upload wrote in
// memory before a sorted run goes to disk: a small n makes a small test
// spill.
func WithSpillRun(o Options, n int) Options {
	o.spillRun = n
	return o
}
