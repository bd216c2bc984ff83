package replay

import (
	"bufio"
	"errors"
	"slices"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/oplog"
)

// opLogParser reads objbench's own op log.
type opLogParser struct {
	name  string
	r     *oplog.Reader
	rec   oplog.Record
	leave []string // stages whose steps are left out
}

func newOpLogParser(name string, br *bufio.Reader, leave []string) (*opLogParser, error) {
	r, err := oplog.NewReader(br)
	if err != nil {
		return nil, err
	}
	return &opLogParser{name: name, r: r, leave: leave}, nil
}

// stageOf is the stage of an op log's step name ("main [c=8] #2": main).
func stageOf(step string) string {
	stage, _, _ := oplog.ParseStep(step)
	return stage
}

func (p *opLogParser) next(rec *Record) (outcome, error) {
	err := p.r.Next(&p.rec)
	*rec = Record{Record: oplog.Record{Worker: -1}, Pos: Pos{File: p.name, Line: p.r.Line()}}
	var le *oplog.LineError
	if errors.As(err, &le) {
		return outcome{skip: "malformed line", detail: le.Err.Error()}, nil
	}
	if err != nil {
		return outcome{}, err
	}
	o := &p.rec
	rec.Record = *o
	switch o.Op {
	case metrics.OpGet, metrics.OpRangeGet:
		rec.BytesOut = o.Size
	case metrics.OpPut, metrics.OpMultipart:
		rec.BytesIn = o.Size
	}
	// A left-out record is filled all the same: Options.Left learns the
	// sizes of the objects a prepare step wrote from it.
	if len(p.leave) > 0 && o.Step != "" && slices.Contains(p.leave, stageOf(o.Step)) {
		return outcome{left: "op log stage " + stageOf(o.Step)}, nil
	}
	if o.Key == "" && o.Op != metrics.OpList {
		return outcome{skip: "no key", detail: o.Op.String()}, nil
	}
	return outcome{}, nil
}
