package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/objbench/objbench/result"
)

// A replay's report says how it was paced and sets its rate beside the
// log's: a replay that fell below 95% of it is a warning, not a quiet
// number; the requests held back for their key's order are counted.
func TestReplayReportSaysPaceAndOrder(t *testing.T) {
	for _, c := range []struct {
		name string
		rp   result.Replay
		want []string
	}{
		{"kept pace", result.Replay{Sources: []string{"ops.jsonl"}, Format: "oplog", Speed: 1, Issued: 3001, Loop: "closed", LogConcurrency: 4, Span: 2.9, Held: 12},
			[]string{"at speed 1, closed loop on 4 workers (the log's most in flight): 3001 requests",
				"pace: the log's requests span 2.900 s (1034/s at speed 1); the replay's took 3.000 s (1000/s, 96.7% of the log's rate)",
				"12 requests waited for an earlier request of their key to end"}},
		{"fell behind", result.Replay{Sources: []string{"access/"}, Format: "s3-access", Speed: 2, Issued: 3001, Loop: "open", Burst: true, Span: 4},
			[]string{"at speed 2, open loop, each second's requests at once (--burst): 3001 requests",
				"warning: the replay fell behind the log: the log's requests span 2.000 s (1500/s at speed 2); the replay's took 3.000 s (1000/s, 66.7% of the log's rate)"}},
	} {
		r := tableResult(t)
		r.Replay = &c.rp
		var b bytes.Buffer
		writeReplay(&b, r)
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: the report lacks %q:\n%s", c.name, w, b.String())
			}
		}
		if c.rp.Held == 0 && strings.Contains(b.String(), "waited") {
			t.Errorf("%s: held requests reported with none held:\n%s", c.name, b.String())
		}
	}
}
