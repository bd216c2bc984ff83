package workload

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// validBucketName reports whether name is a valid S3 bucket name (the
// rules every S3 server enforces: 3-63 characters, lower-case letters,
// digits, dots and hyphens, a letter or digit at each end, no "..").
func validBucketName(name string) bool {
	if len(name) < 3 || len(name) > 63 || strings.Contains(name, "..") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || i == len(name)-1 || c != '-' && c != '.') {
			return false
		}
	}
	return true
}

// s3BucketName maps a COSBench container name onto a valid S3 bucket name,
// the same way every time: lower case, every other character than a
// letter, digit, dot or hyphen becomes a hyphen (cprefix=my_bucket makes
// container my_bucket1, bucket my-bucket1), the ends are trimmed to a letter
// or digit, a name too short is prefixed with "cosbench-", and one too long
// keeps 54 characters and a hash of the whole.
func s3BucketName(name string) string {
	if validBucketName(name) {
		return name
	}
	b := []byte(strings.ToLower(name))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			b[i] = '-'
		}
	}
	out := strings.Trim(strings.ReplaceAll(string(b), "..", ".-"), ".-")
	if len(out) < 3 {
		out = strings.TrimRight("cosbench-"+out, ".-")
	}
	if len(out) > 63 {
		h := fnv.New32a()
		h.Write([]byte(name))
		out = strings.TrimRight(out[:54], ".-") + fmt.Sprintf("-%08x", h.Sum32())
	}
	return out
}

// bucketNames keeps the mapping of a document's container names to bucket
// names: each pattern of names (cprefix, csuffix) is warned about once, and
// two names mapping to one bucket are an error (they would share objects).
type bucketNames struct {
	to     map[string]string // container -> bucket
	from   map[string]string // bucket -> container
	warned map[string]bool   // cprefix + "\x00" + csuffix
}

// buckets maps the containers prefix+N+suffix (N from sel) onto bucket
// names, warning once per pattern and failing at n on a clash.
func (c *cdec) buckets(n *xnode, prefix, suffix string, sel Selector) []string {
	bn := &c.names
	if bn.to == nil {
		bn.to, bn.from, bn.warned = map[string]string{}, map[string]string{}, map[string]bool{}
	}
	var out []string
	changed := ""
	for i := range sel.Count() {
		name := prefix + strconv.FormatInt(sel.At(i), 10) + suffix
		b, ok := bn.to[name]
		if !ok {
			b = s3BucketName(name)
			bn.to[name] = b
			if other, dup := bn.from[b]; dup && other != name {
				c.fail(n, "containers %q and %q both map to the S3 bucket %q; rename one (cprefix/csuffix)", other, name, b)
			}
			bn.from[b] = name
		}
		if b != name && changed == "" {
			changed = fmt.Sprintf("%s -> %s", name, b)
		}
		out = append(out, b)
	}
	if key := prefix + "\x00" + suffix; changed != "" && !bn.warned[key] {
		bn.warned[key] = true
		c.warn(n, "container names %s<N>%s are not valid S3 bucket names: each is mapped to a valid one (%s)", prefix, suffix, changed)
	}
	return out
}
