package replay

import (
	"bufio"
	"errors"

	"github.com/objbench/objbench/metrics"
	"github.com/objbench/objbench/oplog"
)

// opLogParser reads objbench's own op log.
type opLogParser struct {
	name string
	r    *oplog.Reader
	rec  oplog.Record
}

func newOpLogParser(name string, br *bufio.Reader) (*opLogParser, error) {
	r, err := oplog.NewReader(br)
	if err != nil {
		return nil, err
	}
	return &opLogParser{name: name, r: r}, nil
}

func (p *opLogParser) next(rec *Record) (outcome, error) {
	err := p.r.Next(&p.rec)
	*rec = Record{Worker: -1, Pos: Pos{File: p.name, Line: p.r.Line()}}
	var le *oplog.LineError
	if errors.As(err, &le) {
		return outcome{skip: "malformed line", detail: le.Err.Error()}, nil
	}
	if err != nil {
		return outcome{}, err
	}
	o := &p.rec
	if o.Key == "" && o.Op != metrics.OpList {
		return outcome{skip: "no key", detail: o.Op.String()}, nil
	}
	rec.Time, rec.Op, rec.Bucket, rec.Key, rec.Size = o.Start, o.Op, o.Bucket, o.Key, o.Size
	rec.Range, rec.Status, rec.Error = o.Range, o.Status, o.Class
	rec.Total, rec.TTFB, rec.Intended, rec.Worker = o.Latency, o.TTFB, o.Intended, o.Worker
	switch o.Op {
	case metrics.OpGet, metrics.OpRangeGet:
		rec.BytesOut = o.Size
	case metrics.OpPut, metrics.OpMultipart:
		rec.BytesIn = o.Size
	}
	return outcome{}, nil
}
