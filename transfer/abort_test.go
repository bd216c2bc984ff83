package transfer_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/transfer"
)

// interrupting cancels the run when part 3 of an upload starts.
type interrupting struct {
	*s3.Store
	cancel context.CancelFunc
}

func (s interrupting) UploadPart(ctx context.Context, key, id string, n int, body io.Reader, size int64, o storage.PutOptions) (storage.Part, error) {
	if n == 3 {
		s.cancel()
		return storage.Part{}, ctx.Err()
	}
	return s.Store.UploadPart(ctx, key, id, n, body, size, o)
}

// TestInterruptLeavesNoUpload interrupts a multipart upload to the embedded
// server and asks the server (ListMultipartUploads) that none is left.
func TestInterruptLeavesNoUpload(t *testing.T) {
	ctx := context.Background()
	srv, err := s3server.Start(ctx, s3server.Config{Buckets: []string{"bkt"}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Close(ctx) }()
	st, err := s3.New(ctx, s3.Config{Endpoint: srv.Endpoint(), Bucket: "bkt", Region: "us-east-1",
		AccessKey: srv.AccessKey(), SecretKey: srv.SecretKey(), PathStyle: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	uploads := func() string { // ListMultipartUploads, signed with the server's keys (objbench's client has no such call)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.Endpoint()+"/bkt?uploads", nil)
		req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
		creds := aws.Credentials{AccessKeyID: srv.AccessKey(), SecretAccessKey: srv.SecretKey()}
		if err := v4.NewSigner().SignHTTP(ctx, creds, req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now()); err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	p, err := transfer.UploadPlan("gen:30MiB", "big", 1)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	_, err = transfer.Run(cctx, interrupting{st, cancel}, p, transfer.Options{PartSize: 5 << 20, PartConcurrency: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted upload: %v", err)
	}
	if l := uploads(); !strings.Contains(l, "ListMultipartUploadsResult") || strings.Contains(l, "<Upload>") {
		t.Fatalf("uploads left on the server:\n%s", l)
	}
	if c, err := transfer.Verify(ctx, st, p, nil); err != nil || c.Objects != 0 {
		t.Fatalf("objects after an interrupted upload: %v %v", c, err)
	}
}
