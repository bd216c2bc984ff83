package workload

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// xnode is one XML element with the line it starts on.
type xnode struct {
	name  string
	attrs map[string]string
	order []string // attribute names as written, for stable warnings
	line  int
	kids  []*xnode
}

// Bounds on a COSBench document, against hostile input.
const (
	maxXMLDepth = 32
	maxXMLNodes = 100000
)

// parseXML reads the element tree, keeping each element's line.
func parseXML(file string, data []byte) (*xnode, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var root *xnode
	var stack []*xnode
	nodes := 0
	for {
		line, _ := d.InputPos() // where the next token starts
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, xmlError(file, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if nodes++; nodes > maxXMLNodes || len(stack) >= maxXMLDepth {
				return nil, fmt.Errorf("%s:%d: the document is too large or too deeply nested for a workload", file, line)
			}
			n := &xnode{name: t.Name.Local, attrs: map[string]string{}, line: line}
			for _, a := range t.Attr {
				if _, dup := n.attrs[a.Name.Local]; !dup {
					n.order = append(n.order, a.Name.Local)
				}
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, n)
			} else if root != nil {
				return nil, fmt.Errorf("%s:%d: a second top-level element <%s>; a workload has one", file, line, n.name)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) > 0 { // the decoder checks nesting; this guards it
				stack = stack[:len(stack)-1]
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("%s: no XML element in the file", file)
	}
	return root, nil
}

func xmlError(file string, err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		msg := se.Msg
		if strings.Contains(msg, "unescaped <") {
			// COSBench's samples ship with config="accesskey=<accesskey>;...".
			msg += " (replace placeholders like <accesskey> in config attributes with real values)"
		}
		return fmt.Errorf("%s:%d: XML syntax error: %s", file, se.Line, msg)
	}
	return fmt.Errorf("%s: %v", file, err)
}

// kidsNamed returns the child elements called name.
func (n *xnode) kidsNamed(name string) []*xnode {
	var out []*xnode
	for _, k := range n.kids {
		if k.name == name {
			out = append(out, k)
		}
	}
	return out
}

// unknownAttrs lists the attributes of n not in known.
func (n *xnode) unknownAttrs(known ...string) []string {
	var out []string
	for _, a := range n.order {
		if !contains(known, a) {
			out = append(out, a)
		}
	}
	return out
}

// kvConfig is a COSBench config string: "k=v;k=v", its keys in lower
// case. A work's keys are read as COSBench reads them (cdec.config); a
// storage's in any case.
type kvConfig map[string]string

// cosbenchKeys are the config keys COSBench's driver reads, by their
// lower case, spelled as it reads them (dev/cosbench-driver/src/com/intel/
// cosbench/driver/operator/*.java and util/ObjectPicker.java:
// config.get("containers"), config.getBoolean("hashCheck"), ...). Its
// config is a commons-configuration BaseConfiguration filled by
// config/common/KVConfigParser.java, whose keys are case-sensitive: a key
// spelled otherwise is not read.
var cosbenchKeys = map[string]string{"containers": "containers", "content": "content", "cprefix": "cprefix", "csuffix": "csuffix",
	"files": "files", "fileselection": "fileselection", "name": "name", "objects": "objects", "oprefix": "oprefix", "osuffix": "osuffix",
	"sizes": "sizes", "chunked": "chunked", "createcontainer": "createContainer", "deletecontainer": "deleteContainer", "hashcheck": "hashCheck"}

// config reads n's config attribute, leaving out (with a warning, once
// per spelling) the keys COSBench would not read because their case
// differs from its own: COSBench's own sample hashcheck.xml writes
// hashcheck=true, which COSBench ignores.
func (c *cdec) config(n *xnode) kvConfig {
	out := kvConfig{}
	for _, part := range strings.Split(n.attrs["config"], ";") {
		raw, v, ok := strings.Cut(part, "=")
		raw = strings.TrimSpace(raw)
		k := strings.ToLower(raw)
		if !ok || k == "" {
			continue
		}
		if want, known := cosbenchKeys[k]; known && raw != want {
			if c.cased == nil {
				c.cased = map[string]bool{}
			}
			if !c.cased[raw] {
				c.cased[raw] = true
				c.warn(n, "config key %s is not COSBench's %s: COSBench's keys are case-sensitive, so it ignores %s (here and wherever else it is written), and so does objbench", raw, want, raw)
			}
			continue
		}
		out[k] = strings.TrimSpace(v)
	}
	return out
}

func parseKV(s string) kvConfig {
	out := kvConfig{}
	for _, part := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(part, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" {
			continue
		}
		out[k] = strings.TrimSpace(v)
	}
	return out
}

// merge returns c overridden by o (a child's config over its parent's).
func (c kvConfig) merge(o kvConfig) kvConfig {
	out := kvConfig{}
	for k, v := range c {
		out[k] = v
	}
	for k, v := range o {
		out[k] = v
	}
	return out
}

// keys returns the config's keys in order.
func (c kvConfig) keys() []string {
	out := make([]string, 0, len(c))
	for k := range c {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
