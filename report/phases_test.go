package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/objbench/objbench/result"
)

// withPhases gives the first main step's GETs phases (tls p50 of tlsUS)
// and the step its connections.
func withPhases(t *testing.T, tlsUS int64) *result.Run {
	r := tableResult(t)
	st := &r.Steps[1]
	var ph [result.NumPhases]string
	ph[2] = histogram(t, 0, 0, 0, 300)                        // connect: one request in four on a new connection
	ph[3] = histogram(t, tlsUS, tlsUS, tlsUS, tlsUS, 9*tlsUS) // tls
	ph[4] = histogram(t, 20, 25, 30)                          // send
	ph[5] = histogram(t, 600, 650, 700, 5000)                 // wait
	ph[6] = histogram(t, 90, 95)                              // receive
	st.Streams[0].Phases = []result.OpPhases{{Op: "GET", Requests: 1185, NewConns: 12, Phases: ph}}
	st.Connections = &result.Connections{Requests: 1520, Opened: 12, Reused: 1508, TLSHandshakes: 12, TLSResumed: 10}
	return r
}

func TestTableWhereTheTimeGoes(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, withPhases(t, 2000)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Where the time goes (per request, p50 / p99 in ms",
		"1520 requests: 12 new connections, 1508 reused, 0 closed by the server, 12 TLS handshakes (10 resumed)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	var row []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 5 && f[0] == "main" && f[1] == "readers" && f[2] == "GET" && f[4] == "1185" {
			row = f[1:] // the run has a step of two streams: the table names each row's
		}
	}
	// STAGE STREAM OP CONC REQS NEW-CONN CONN-WAIT DNS CONNECT(p50 / p99) TLS(p50 / p99)...
	if len(row) < 12 || row[4] != "12" || row[5] != "-" || row[6] != "-" || strings.Join(row[7:10], " ") != "0 / 0.300" ||
		strings.Join(row[10:13], " ") != "2.00 / 18.0" {
		t.Errorf("the GET row of phases: %q", row)
	}
}

func TestComparePhases(t *testing.T) {
	var b bytes.Buffer
	if err := WriteComparePhases(&b, []string{"a.json", "b.json"}, []*result.Run{withPhases(t, 2000), withPhases(t, 3000)}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "3.00 (+50.0%) / 27.0 (+49.9%)") {
		t.Errorf("no per-phase change of TLS:\n%s", b.String())
	}
	b.Reset()
	if err := WriteComparePhases(&b, []string{"a", "b"}, []*result.Run{tableResult(t), tableResult(t)}); err != nil || b.Len() != 0 {
		t.Errorf("results without phases: %v, %q", err, b.String())
	}
}

// The tables count 412s, 304s and not-implemented answers apart from
// failures, and name them.
func TestOutcomesAreNotFailures(t *testing.T) {
	r := tableResult(t)
	tot := &r.Steps[1].Streams[0].Totals[0]
	tot.Ops += 30
	tot.Errors = map[string]int64{"precondition_failed": 10, "not_modified": 15, "not_implemented": 5}
	if f := Failures(*tot); f != 0 {
		t.Errorf("failures %d, want 0", f)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"outcomes main stream readers GET conc 4: 10 precondition_failed", "outcomes main stream readers GET conc 4: 15 not_modified",
		"not implemented by this target: main stream readers GET conc 4 5"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q", want)
		}
	}
	if strings.Contains(b.String(), "errors main GET") {
		t.Errorf("outcomes printed as errors:\n%s", b.String())
	}
}

// The CSV carries each row's phases: the same p50 and p99 the table
// prints, empty cells where a row has none.
func TestCSVWhereTheTimeGoes(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, withPhases(t, 2000)); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var get, put []string
	for _, r := range recs[1:] {
		switch {
		case r[col["stage"]] == "main" && r[col["stream"]] == "readers" && r[col["op"]] == "GET" && get == nil:
			get = r
		case r[col["op"]] == "PUT" && put == nil:
			put = r
		}
	}
	if get == nil || put == nil {
		t.Fatalf("no GET or PUT row in\n%v", recs)
	}
	for name, want := range map[string]string{
		"requests_traced": "1185", "new_conns": "12", "tls_resumed": "0",
		"conn_wait_p50_ms": "", "connect_p50_ms": "0", "connect_p99_ms": "0.3",
		"tls_p50_ms": "2", "tls_p99_ms": "18.015", "wait_p50_ms": "0.65", "wait_p99_ms": "5.003", "receive_p99_ms": "0.095",
	} {
		if i, ok := col[name]; !ok || get[i] != want {
			t.Errorf("GET %s = %q, want %q (header has it: %v)", name, get[min(i, len(get)-1)], want, ok)
		}
	}
	for _, name := range []string{"requests_traced", "wait_p50_ms", "receive_p99_ms"} {
		if v := put[col[name]]; v != "" {
			t.Errorf("PUT has no phases, but %s = %q", name, v)
		}
	}
}
