package corpus

// FromDirSpilling is FromDir with its sorted names spilled to tmp in runs
// of runBytes: small runs make a small test spill.
var FromDirSpilling = fromDir

// SpilledRuns is how many sorted runs of the corpus's names went to disk.
func SpilledRuns(c *Corpus) int { return c.sorted.Runs() }
