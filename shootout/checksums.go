package shootout

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// What a tool computes over the data it uploads is CPU the shoot-out
// charges to it: a CRC per byte, or a SHA-256 for a signed payload. The
// probe measures it rather than taking the tools' documentation's word:
// each tool uploads one small file to a recorder on 127.0.0.1 that
// answers like S3 and keeps the first upload's headers, and the headers
// say what was computed.

// checksumProbeTimeout bounds one tool's probe upload.
const checksumProbeTimeout = 60 * time.Second

// recorder is the probe's S3 stand-in: it keeps the first PUT's headers
// and answers every request as an empty bucket would.
type recorder struct {
	mu  sync.Mutex
	put http.Header
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	switch r.Method {
	case http.MethodPut:
		rc.mu.Lock()
		if rc.put == nil && r.URL.Query().Get("partNumber") == "" && strings.Count(strings.Trim(r.URL.Path, "/"), "/") >= 1 {
			rc.put = r.Header.Clone()
		}
		rc.mu.Unlock()
		w.Header().Set("ETag", `"d41d8cd98f00b204e9800998ecf8427e"`)
		for name := range r.Header { // confirm any checksum it sent, as S3 does
			if strings.HasPrefix(strings.ToLower(name), "x-amz-checksum-") {
				w.Header().Set(name, r.Header.Get(name))
			}
		}
	case http.MethodHead: // the bucket is there, no object is
		if strings.Contains(strings.Trim(r.URL.Path, "/"), "/") {
			w.WriteHeader(http.StatusNotFound)
		}
	case http.MethodGet:
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`+
			`<Name>probe</Name><Prefix></Prefix><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>`)
	}
}

// DescribeChecksums says what an upload's headers show was computed over
// its payload: checksums for the target to verify (in a header or a
// trailer, or Content-MD5) and whether the payload's SHA-256 was signed.
func DescribeChecksums(h http.Header) string {
	var parts []string
	if t := h.Get("X-Amz-Trailer"); t != "" {
		parts = append(parts, strings.TrimPrefix(strings.ToLower(t), "x-amz-checksum-")+" trailer (aws-chunked)")
	}
	for name := range h {
		if l := strings.ToLower(name); strings.HasPrefix(l, "x-amz-checksum-") && l != "x-amz-checksum-algorithm" && l != "x-amz-checksum-type" {
			parts = append(parts, strings.TrimPrefix(l, "x-amz-checksum-")+" header")
		}
	}
	if h.Get("Content-Md5") != "" {
		parts = append(parts, "md5 (Content-MD5)")
	}
	for name := range h {
		if l := strings.ToLower(name); strings.HasPrefix(l, "x-amz-meta-") && strings.Contains(l, "md5") {
			parts = append(parts, "md5 (in metadata "+l+")")
		}
	}
	switch p := h.Get("X-Amz-Content-Sha256"); {
	case p == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" || p == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER":
		parts = append(parts, "payload signed chunk by chunk (SHA-256)")
	case len(p) == 64:
		parts = append(parts, "payload SHA-256 signed")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// probeChecksums runs each installed tool once against a recorder and
// notes what its upload computed (Tool.Checksums).
func (h *harness) probeChecksums(ctx context.Context) {
	dir, err := os.MkdirTemp(h.work, "probe-*")
	if err != nil {
		return
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return
	}
	if err := os.WriteFile(filepath.Join(src, "probe"), make([]byte, 64<<10), 0o644); err != nil {
		return
	}
	for _, p := range h.tools {
		seen, err := h.probeTool(ctx, p, src, dir)
		for i := range h.res.Tools {
			if h.res.Tools[i].Name == p.Name {
				h.res.Tools[i].Checksums = seen
				if err != nil {
					h.res.Tools[i].Checksums = "not measured: " + err.Error()
				}
			}
		}
	}
}

func (h *harness) probeTool(ctx context.Context, p *Profile, src, dir string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	rec := &recorder{}
	srv := &http.Server{Handler: rec, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	scratch, err := os.MkdirTemp(dir, "run-*")
	if err != nil {
		return "", err
	}
	tgt := Target{Endpoint: "http://" + ln.Addr().String(), Bucket: "probe", Region: h.c.Target.region(),
		AccessKey: "PROBEACCESSKEY", SecretKey: "probe-secret-key"}
	job := Job{Src: src, Bucket: "probe", Prefix: "probe/", Threads: 1, Files: 1, Dir: scratch, Target: tgt,
		Objbench: h.c.Objbench, Script: h.script, JSScript: h.jsScript, Checksum: h.c.Checksum}
	cmd, err := p.Command(job)
	if err != nil {
		return "", err
	}
	if p.path != "" && len(cmd.Args) > 0 && cmd.Args[0] == p.Binary {
		cmd.Args[0] = p.path
	}
	child := runChild(ctx, cmd, childEnv(h.c.Env, cmd), checksumProbeTimeout, nil)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.put == nil {
		if child.Err != nil {
			return "", fmt.Errorf("no upload seen (%v)", child.Err)
		}
		return "", errors.New("no upload seen")
	}
	return DescribeChecksums(rec.put), nil
}
