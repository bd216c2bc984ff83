package workload

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// cdec maps a COSBench document onto a Spec, collecting every problem.
type cdec struct {
	file  string
	errs  []error
	warns []Warning
	names bucketNames
	opts  DecodeOptions
	typed map[string]bool // storage types already warned about
	cased map[string]bool // config keys spelled otherwise than COSBench reads them, warned about
}

func (c *cdec) pos(n *xnode) Pos { return Pos{File: c.file, Line: n.line} }

func (c *cdec) fail(n *xnode, format string, a ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s: %s", c.pos(n), fmt.Sprintf(format, a...)))
}

func (c *cdec) warn(n *xnode, format string, a ...any) {
	c.warns = append(c.warns, Warning{Pos: c.pos(n), Msg: fmt.Sprintf(format, a...)})
}

// DecodeCOSBench reads a COSBench 0.4.x workload document. Objects keep
// COSBench's names below the run's namespace; what objbench cannot honour
// comes back as warnings, never silently dropped. The spec is not
// validated (see Decode).
func DecodeCOSBench(file string, data []byte) (Spec, []Warning, error) {
	return decodeCOSBench(file, data, DecodeOptions{})
}

func decodeCOSBench(file string, data []byte, o DecodeOptions) (Spec, []Warning, error) {
	if len(data) > MaxFileSize {
		return Spec{}, nil, fmt.Errorf("%s: %d bytes is too large for a workload file (at most %d)", file, len(data), MaxFileSize)
	}
	root, err := parseXML(file, data)
	if err != nil {
		return Spec{}, nil, err
	}
	c := &cdec{file: file, opts: o}
	if root.name != "workload" {
		c.fail(root, "the top element is <%s>; a COSBench workload starts with <workload>", root.name)
		return Spec{}, nil, errors.Join(c.errs...)
	}
	sp := Spec{Name: root.attrs["name"], Source: &Source{File: file, Format: "cosbench"}}
	c.checkElement(root, []string{"name", "description", "trigger", "config"}, "auth", "storage", "workflow")
	cfg := c.config(root)
	sp.Storage = c.storageOf(root, nil)
	flows := root.kidsNamed("workflow")
	if len(flows) != 1 {
		c.fail(root, "a workload needs exactly one <workflow>, found %d", len(flows))
		return sp, c.warns, errors.Join(c.errs...)
	}
	flow := flows[0]
	c.checkElement(flow, []string{"config"}, "workstage")
	cfg = cfg.merge(c.config(flow))
	for i, ws := range flow.kidsNamed("workstage") {
		sp.Stages = append(sp.Stages, c.workstage(ws, i, cfg, sp.Storage)...)
	}
	if len(sp.Stages) == 0 && len(c.errs) == 0 {
		c.fail(flow, "the workflow has no <workstage>")
	}
	return sp, c.warns, errors.Join(c.errs...)
}

// checkElement warns about attributes and child elements objbench does not
// know, and about triggers (scripts COSBench runs around a stage).
func (c *cdec) checkElement(n *xnode, attrs []string, kids ...string) {
	for _, a := range n.unknownAttrs(attrs...) {
		c.warn(n, "attribute %s of <%s> is not one objbench knows; ignored", a, n.name)
	}
	for _, k := range n.kids {
		if !contains(kids, k.name) {
			c.warn(k, "element <%s> inside <%s> is not one objbench knows; ignored", k.name, n.name)
		}
	}
	if t := n.attrs["trigger"]; t != "" {
		c.warn(n, "trigger %q: objbench runs no trigger scripts", t)
	}
	for _, a := range n.kidsNamed("auth") {
		if t := strings.ToLower(a.attrs["type"]); t != "" && t != "none" {
			c.warn(a, "auth type %q is ignored: objbench signs S3 requests with the storage credentials", t)
		}
	}
}

// storageOf is n's <storage>, or the inherited one.
func (c *cdec) storageOf(n *xnode, inherited *Storage) *Storage {
	els := n.kidsNamed("storage")
	if len(els) == 0 {
		return inherited
	}
	if len(els) > 1 {
		c.warn(els[1], "more than one <storage> in <%s>; the first is used", n.name)
	}
	return c.storage(els[0])
}

var storageKeys = map[string]string{
	"proxyhost":       "set HTTPS_PROXY or HTTP_PROXY instead",
	"proxyport":       "set HTTPS_PROXY or HTTP_PROXY instead",
	"max_connections": "objbench keeps at least one connection per worker",
	"no_verify_ssl":   "use --insecure",
}

func (c *cdec) storage(n *xnode) *Storage {
	for _, a := range n.unknownAttrs("type", "config") {
		c.warn(n, "attribute %s of <storage> is not one objbench knows; ignored", a)
	}
	st := &Storage{Type: strings.ToLower(n.attrs["type"]), Pos: c.pos(n)}
	switch st.Type {
	case "s3":
	case "sio":
		c.warnType(n, st.Type, "storage type sio is run as plain S3")
		st.Type = "s3"
	case "none", "mock":
		// COSBench's none and mock drivers store nothing: the workload
		// runs on the target the command line names, or the embedded server.
		where := "the embedded S3 server (no target given on the command line)"
		if c.opts.Target {
			where = "the target the command line names"
		}
		if st.Type == "mock" || c.opts.Target {
			c.warnType(n, st.Type, "storage type %s (COSBench's driver that stores nothing) is run against %s, containers as buckets", st.Type, where)
		}
		return &Storage{Type: "s3", Pos: st.Pos}
	default:
		if c.opts.Target {
			c.warnType(n, st.Type, "storage type %s is run against the target the command line names, containers as buckets; its config is not used", st.Type)
			return &Storage{Type: "s3", Pos: st.Pos}
		}
		return st // refused by Validate, once, unless a target is named
	}
	cfg := parseKV(n.attrs["config"])
	for _, k := range cfg.keys() {
		v := cfg[k]
		switch k {
		case "endpoint":
			st.Endpoint = strings.TrimRight(v, "/")
		case "accesskey":
			st.AccessKey, st.Credentials = v, true
		case "secretkey":
			st.SecretKey, st.Credentials = v, true
		case "region":
			st.Region = v
		case "path_style_access":
			st.Addressing = "virtual"
			if b, err := parseBool(v); err == nil && b {
				st.Addressing = "path"
			}
		case "timeout":
			if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms > 0 && ms < 1e9 {
				st.Timeout = time.Duration(ms) * time.Millisecond
			}
		default:
			if v == "" {
				continue // proxyhost= and the like, left empty in samples
			}
			hint := cmpOr(storageKeys[k], "ignored")
			c.warn(n, "storage config key %s is not used by objbench: %s", k, hint) // never the value: it may be secret
		}
	}
	return st
}

// warnType warns about storage type t once per document.
func (c *cdec) warnType(n *xnode, t, format string, a ...any) {
	if c.typed == nil {
		c.typed = map[string]bool{}
	}
	if !c.typed[t] {
		c.typed[t] = true
		c.warn(n, format, a...)
	}
}

// stageGroup is a run of works of one kind inside a workstage.
type stageGroup struct {
	kind    StageKind
	streams []Stream
	afr     float64
	before  []Stage // createContainer=true
	after   []Stage // deleteContainer=true
}

func (c *cdec) workstage(ws *xnode, i int, cfg kvConfig, storage *Storage) []Stage {
	c.checkElement(ws, []string{"name", "closuredelay", "trigger", "config"}, "auth", "storage", "work")
	name := ws.attrs["name"]
	if name == "" {
		name = fmt.Sprintf("stage %d", i+1)
		c.warn(ws, "workstage without a name; called %q", name)
	}
	cfg = cfg.merge(c.config(ws))
	storage = c.storageOf(ws, storage)
	var groups []*stageGroup
	for _, w := range ws.kidsNamed("work") {
		wk, ok := c.work(w, cfg, storage)
		if !ok {
			continue
		}
		if n := len(groups); n > 0 && groups[n-1].kind == wk.kind {
			g := groups[n-1]
			g.streams, g.afr = append(g.streams, wk.streams...), min(g.afr, wk.afr)
			g.before, g.after = append(g.before, wk.before...), append(g.after, wk.after...)
			continue
		}
		groups = append(groups, wk)
	}
	if len(ws.kidsNamed("work")) == 0 {
		c.fail(ws, "workstage %q has no <work>", name)
	}
	delay := c.closureDelay(ws)
	var out []Stage
	if name == "delay" && delay > 0 {
		// COSBench's controller sleeps in a stage named delay and runs
		// none of its works (dev/cosbench-controller/src/com/intel/
		// cosbench/controller/service/WorkloadProcessor.java, runStage).
		if kinds := groupKinds(groups); kinds != "" && kinds != string(KindDelay) {
			c.warn(ws, "workstage \"delay\" runs only its closuredelay of %v, as in COSBench: its %s works are not run", delay, kinds)
		}
		out = []Stage{{Name: name, Kind: KindDelay, Delay: delay, Pos: c.pos(ws)}}
	} else {
		if len(groups) > 1 {
			c.warn(ws, "workstage %q mixes %s works; objbench runs them as %d stages one after the other, not at the same time", name, groupKinds(groups), len(groups))
		}
		out = c.stagesOf(ws, name, groups, delay)
	}
	for k := range out {
		out[k].Workstage = &Workstage{Index: i + 1, Name: name}
	}
	return out
}

func groupKinds(gs []*stageGroup) string {
	var ks []string
	for _, g := range gs {
		ks = append(ks, string(g.kind))
	}
	return strings.Join(ks, " and ")
}

func (c *cdec) closureDelay(ws *xnode) time.Duration {
	v, ok := ws.attrs["closuredelay"]
	if !ok || strings.TrimSpace(v) == "" {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 || n > 1e7 {
		c.fail(ws, "closuredelay %q: want a whole number of seconds", v)
		return 0
	}
	return time.Duration(n) * time.Second
}

// stagesOf turns a workstage's groups into stages; closuredelay becomes a
// delay after them (or the delay of a delay work).
func (c *cdec) stagesOf(ws *xnode, name string, groups []*stageGroup, delay time.Duration) []Stage {
	var out []Stage
	at := c.pos(ws)
	for _, g := range groups {
		stName := name
		if len(groups) > 1 {
			stName = name + " (" + string(g.kind) + ")"
		}
		if g.kind == KindDelay {
			// COSBench's driver has no delay operator (dev/cosbench-driver/
			// src/com/intel/cosbench/driver/operator/Operators.java): a
			// delay work fails its stage, unless the stage is named delay.
			const fails = "COSBench fails this stage (its driver has no delay operator; only a workstage named delay sleeps)"
			if delay <= 0 {
				c.warn(ws, "delay work in workstage %q with closuredelay 0: %s; objbench waits for nothing and skips it", name, fails)
				continue
			}
			c.warn(ws, "delay work in workstage %q: %s; objbench waits its closuredelay of %v", name, fails, delay)
			out = append(out, Stage{Name: stName, Kind: KindDelay, Delay: delay, Pos: at})
			delay = 0
			continue
		}
		st := Stage{Name: stName, Kind: g.kind, Streams: g.streams, Pos: at}
		if g.kind == KindMain || g.kind == KindPrepare { // cleanup always runs to its end
			st.OnError = &FailurePolicy{MaxErrorRatio: g.afr, AtEnd: true}
		}
		out = append(append(append(out, g.before...), st), g.after...)
	}
	if delay > 0 {
		out = append(out, Stage{Name: name + " closuredelay", Kind: KindDelay, Delay: delay, Pos: at})
	}
	return out
}
