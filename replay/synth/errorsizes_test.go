package synth_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/replay"
	"github.com/objbench/objbench/replay/synth"
)

// accessLine is one S3 server access log line: a GET of key that
// answered status and sent bytes, the object's size ("-" when the
// request failed, as S3 writes it).
func accessLine(sec int, op, key string, status int, sent int64, size string) string {
	return strings.Join([]string{strings.Repeat("0f", 32), "prod", "[" + t0.Add(time.Duration(sec)*time.Second).Format("02/Jan/2006:15:04:05 -0700") + "]",
		"10.1.2.3", "arn:aws:iam::000000000000:user/tester", fmt.Sprintf("REQ%04d", sec), op, key,
		`"GET /prod/` + key + ` HTTP/1.1"`, fmt.Sprint(status), map[bool]string{true: "NoSuchKey", false: "-"}[status == 404],
		fmt.Sprint(sent), size, "12", "7", `"-"`, `"test/1.0"`, "-", "aG9zdGlk", "SigV4", "TLS_AES_128_GCM_SHA256", "AuthHeader",
		"prod.s3.example.test", "TLSv1.3", "-", "-"}, " ")
}

// minioLine is one `mc admin trace --json` entry of a GET that answered
// status and sent tx bytes.
func minioLine(sec int, key string, status int, tx int64) string {
	e := map[string]any{"type": "S3", "api": "s3.GetObject", "time": t0.Add(time.Duration(sec) * time.Second).Format(time.RFC3339Nano),
		"path": "/prod/" + key, "statusCode": status, "duration": 2500000,
		"callStats": map[string]any{"rx": 0, "tx": tx, "duration": 2500000, "timeToFirstByte": 400000}}
	if status == 404 {
		e["error"] = "The specified key does not exist."
	}
	b, _ := json.Marshal(e)
	return string(b)
}

// A failed request's body is an error document (a 404's 312 bytes), not
// an object: synthesis takes sizes only from successful transfers, for
// access logs and MinIO traces alike.
func TestSynthesisTakesSizesOnlyFromSuccesses(t *testing.T) {
	var access, trace []string
	for i := range 200 {
		access = append(access, accessLine(i/10, "REST.GET.OBJECT", fmt.Sprintf("objects/%d", i%20), 200, 5000, "5000"))
		trace = append(trace, minioLine(i/10, fmt.Sprintf("objects/%d", i%20), 200, 5000))
		if i%2 == 0 {
			access = append(access, accessLine(i/10, "REST.GET.OBJECT", fmt.Sprintf("missing/%d", i), 404, 312, "-"))
			trace = append(trace, minioLine(i/10, fmt.Sprintf("missing/%d", i), 404, 312))
		}
	}
	for name, text := range map[string]string{"access log": strings.Join(access, "\n"), "minio trace": strings.Join(trace, "\n")} {
		t.Run(name, func(t *testing.T) {
			r, err := replay.NewReader(name, strings.NewReader(text+"\n"), replay.Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			p := synth.New(synth.Options{})
			for r.Next() {
				p.Add(r.Record())
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			res, err := p.Workload(synth.WorkloadOptions{Name: "sizes"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Summary.Failed != 100 {
				t.Errorf("%d failed requests counted, want the 100 404s", res.Summary.Failed)
			}
			for _, st := range res.Spec.Stages {
				for _, s := range st.Streams {
					if s.Size != 5000 || s.SizeDist != nil {
						t.Errorf("stage %s stream %s: size %d, distribution %v; want every object 5000 bytes (the 404s' 312-byte error bodies are not objects)",
							st.Name, s.Name, s.Size, s.SizeDist)
					}
				}
			}
			var buf bytes.Buffer
			if err := synth.WriteYAML(&buf, res); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(buf.String(), "312") {
				t.Errorf("the workload file has the error body's size 312:\n%s", buf.String())
			}
		})
	}
}
