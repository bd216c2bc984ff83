package cli

import (
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/corpus"
)

// corpusFlags name a real corpus to upload: --from-dir, --from-git and
// --max-objects.
type corpusFlags struct {
	fromDir, fromGit string
	maxObjects       int
}

func (c *corpusFlags) register(f *pflag.FlagSet, verb string) {
	f.StringVar(&c.fromDir, "from-dir", "", verb+" a real corpus: every file under this directory tree (e.g. a maildir)")
	f.StringVar(&c.fromGit, "from-git", "", verb+" a real corpus: every blob of this git repository (e.g. a public-inbox archive: one email per blob)")
}

// source is the corpus as corpus.Load takes it ("" for none).
func (c *corpusFlags) source() (string, error) {
	switch {
	case c.fromDir != "" && c.fromGit != "":
		return "", usagef("give --from-dir or --from-git, not both")
	case c.maxObjects < 0:
		return "", usagef("--max-objects %d: want a count above 0", c.maxObjects)
	case c.fromDir != "":
		return corpus.DirPrefix + c.fromDir, nil
	case c.fromGit != "":
		return corpus.GitPrefix + c.fromGit, nil
	}
	return "", nil
}
