package probe

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // Content-MD5
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/objbench/objbench/storage"
)

func checkConditional(ctx context.Context, p *prober) {
	oi, err := p.put(ctx, "conditional", payload(512, 9), storage.PutOptions{})
	if err != nil {
		p.add("conditional.put.if-none-match", NotChecked, "could not write the object: %v", err)
		return
	}
	// Each write that should fail carries the same bytes as the object, so
	// a store that ignores the condition leaves nothing changed.
	same := payload(512, 9)
	condition := func(name string, err error, want error, ignored string) {
		switch {
		case err == nil:
			p.add(name, No, "%s", ignored)
		case errors.Is(err, want):
			p.add(name, Yes, "the condition held as S3 holds it (%s)", rootStatus(err))
		default:
			p.add(name, No, "%s", refusal(p.seen(err)))
		}
	}
	_, err = p.st.Put(ctx, oi.Key, bytes.NewReader(same), int64(len(same)), storage.PutOptions{IfNoneMatch: "*"})
	condition("conditional.put.if-none-match", err, storage.ErrPreconditionFailed,
		"If-None-Match: * ignored: the existing object was overwritten (create-only writes are not safe here)")
	_, err = p.st.Put(ctx, oi.Key, bytes.NewReader(same), int64(len(same)), storage.PutOptions{IfMatch: `"00000000000000000000000000000000"`})
	condition("conditional.put.if-match", err, storage.ErrPreconditionFailed,
		"If-Match with a wrong ETag ignored: the object was overwritten (compare-and-swap is not safe here)")
	_, err = p.st.Get(ctx, oi.Key, storage.GetOptions{IfNoneMatch: oi.ETag}, io.Discard)
	condition("conditional.get.if-none-match", err, storage.ErrNotModified,
		"If-None-Match with the current ETag ignored: the whole object was sent")
	_, err = p.st.Get(ctx, oi.Key, storage.GetOptions{IfMatch: `"00000000000000000000000000000000"`}, io.Discard)
	condition("conditional.get.if-match", err, storage.ErrPreconditionFailed,
		"If-Match with a wrong ETag ignored: the object was sent")
}

// checkVersioning reads the bucket's state; only in a bucket the probe
// created does it enable versioning and count the versions two writes make.
func checkVersioning(ctx context.Context, p *prober) {
	state, err := p.st.Versioning(ctx)
	if err != nil {
		p.add("versioning", No, "%s", refusal(p.seen(err)))
		return
	}
	if state == "" {
		state = "never enabled"
	}
	if !p.rep.BucketCreated {
		p.add("versioning", NotChecked, "the bucket's versioning: %s; enabling it is tried only in a bucket the probe creates", state)
		return
	}
	if err := p.st.SetVersioning(ctx, true); err != nil {
		p.add("versioning", No, "enabling versioning %s", refusal(p.seen(err)))
		return
	}
	p.versioned = true
	key := ""
	for i := range 2 {
		oi, err := p.put(ctx, "versioned", payload(100, uint64(10+i)), storage.PutOptions{})
		if err != nil {
			p.add("versioning", No, "a write to a versioned bucket failed: %v", err)
			return
		}
		key = oi.Key
	}
	n := 0
	err = p.st.ListVersions(ctx, key, func(v storage.ObjectVersion) error {
		if v.Key == key && !v.DeleteMarker {
			n++
		}
		return nil
	})
	switch {
	case err != nil:
		p.add("versioning", No, "listing versions %s", refusal(p.seen(err)))
	case n == 2:
		p.add("versioning", Yes, "enabled on the probe's bucket: two writes kept two versions")
	default:
		p.add("versioning", Differs, "enabled, but two writes left %d versions", n)
	}
}

func checkObjectLock(ctx context.Context, p *prober) {
	r, err := p.st.Exchange(ctx, http.MethodGet, "", "object-lock=", nil, nil)
	if err != nil {
		p.add("object-lock", NotChecked, "%v", p.seen(err))
		return
	}
	code := p.st.ReplyError(ctx, r).Code
	switch {
	case r.StatusCode == 200:
		p.add("object-lock", Yes, "enabled on this bucket")
	case r.StatusCode == 404 && code == "ObjectLockConfigurationNotFoundError":
		p.add("object-lock", Yes, "supported, not enabled on this bucket (it can only be enabled when a bucket is created)")
	default:
		p.add("object-lock", No, "GET ?object-lock answered %s", rootStatus(p.seen(p.st.ReplyError(ctx, r))))
	}
}

func checkTagging(ctx context.Context, p *prober) {
	oi, err := p.put(ctx, "tagged", []byte("tagged"), storage.PutOptions{Tagging: "objbench-probe=1"})
	if err != nil {
		p.add("tagging", No, "a PUT with x-amz-tagging %s", refusal(err))
		return
	}
	r, err := p.st.Exchange(ctx, http.MethodGet, oi.Key, "tagging=", nil, nil)
	switch {
	case err != nil:
		p.add("tagging", NotChecked, "%v", p.seen(err))
	case r.StatusCode != 200:
		p.add("tagging", No, "GET ?tagging answered %s", rootStatus(p.seen(p.st.ReplyError(ctx, r))))
	case bytes.Contains(r.Body, []byte("<Key>objbench-probe</Key>")):
		p.add("tagging", Yes, "tags written with the object come back")
	default:
		p.add("tagging", Differs, "x-amz-tagging accepted, but the object has no tags")
	}
}

func checkSSE(ctx context.Context, p *prober) {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	for _, c := range []struct {
		name string
		enc  storage.Encryption
	}{
		{"sse.s3", storage.Encryption{Mode: storage.SSES3}},
		{"sse.kms", storage.Encryption{Mode: storage.SSEKMS}},
		{"sse.c", storage.Encryption{Mode: storage.SSEC, CustomerKey: key}},
	} {
		_, err := p.put(ctx, c.name, []byte(c.name), storage.PutOptions{Encryption: &c.enc})
		if err != nil {
			detail := refusal(err)
			if c.name == "sse.c" && strings.HasPrefix(p.cfg.Endpoint, "http://") {
				detail += " (over http; S3 takes SSE-C keys over https only)"
			}
			p.add(c.name, No, "%s", detail)
			continue
		}
		p.add(c.name, Yes, "the write was encrypted, as the store confirmed")
	}
}

func checkDeleteObjects(ctx context.Context, p *prober) {
	var ids []storage.ObjectID
	for _, n := range []string{"batch-1", "batch-2"} {
		oi, err := p.put(ctx, n, []byte(n), storage.PutOptions{})
		if err != nil {
			p.add("delete-objects", NotChecked, "could not write the objects: %v", err)
			return
		}
		ids = append(ids, storage.ObjectID{Key: oi.Key})
	}
	failed, err := p.st.DeleteObjects(ctx, ids)
	switch {
	case err != nil:
		p.add("delete-objects", No, "%s", refusal(p.seen(err)))
	case len(failed) > 0:
		p.add("delete-objects", No, "%d of 2 not deleted: %s", len(failed), failed[0].Code)
	default:
		for _, id := range ids {
			if _, err := p.st.Stat(ctx, id.Key); !errors.Is(err, storage.ErrNotFound) {
				p.add("delete-objects", Differs, "answered success, but %s is still there", id.Key)
				return
			}
		}
		p.add("delete-objects", Yes, "two keys in one request")
	}
	checkDeleteLimit(ctx, p)
}

// checkDeleteLimit asks DeleteObjects to delete one key more than S3's
// limit: keys under the probe's prefix that were never written, so there
// is nothing to delete either way. In a bucket that keeps versions each
// would leave a delete marker: not asked there.
func checkDeleteLimit(ctx context.Context, p *prober) {
	const name = "delete-objects.limit"
	state, err := p.st.Versioning(ctx)
	if err != nil || state != "" {
		p.add(name, NotChecked, "the bucket keeps versions (or says nothing of them): deletes of absent keys would leave delete markers")
		return
	}
	var doc strings.Builder
	doc.WriteString(`<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet>`)
	for i := range storage.MaxBatchDelete + 1 {
		fmt.Fprintf(&doc, "<Object><Key>%snever-written/%04d</Key></Object>", p.prefix, i)
	}
	doc.WriteString("</Delete>")
	body := []byte(doc.String())
	sum := md5.Sum(body) //nolint:gosec // Content-MD5, which S3 requires of DeleteObjects
	r, err := p.st.Exchange(ctx, http.MethodPost, "", "delete=", http.Header{
		"Content-Md5": {base64.StdEncoding.EncodeToString(sum[:])}, "Content-Type": {"application/xml"}}, body)
	switch {
	case err != nil:
		p.add(name, NotChecked, "%v", p.seen(err))
	case r.StatusCode == http.StatusNotImplemented:
		p.add(name, No, "DeleteObjects %s", refusal(p.seen(p.st.ReplyError(ctx, r))))
	case r.StatusCode == 200:
		p.add(name, Differs, "%d keys in one request accepted: S3 refuses more than %d", storage.MaxBatchDelete+1, storage.MaxBatchDelete)
	default:
		p.add(name, Yes, "%d keys in one request refused (%s): at most %d, as S3", storage.MaxBatchDelete+1, rootStatus(p.seen(p.st.ReplyError(ctx, r))), storage.MaxBatchDelete)
	}
}

func checkCopy(ctx context.Context, p *prober) {
	src, err := p.put(ctx, "copy-src", payload(2048, 12), storage.PutOptions{})
	if err != nil {
		p.add("copy-object", NotChecked, "could not write the source: %v", err)
		return
	}
	dst := p.key("copy-dst")
	if _, err := p.st.CopyObject(ctx, src.Key, dst, storage.CopyOptions{}); err != nil {
		p.add("copy-object", No, "%s", refusal(p.seen(err)))
	} else if oi, err := p.st.Stat(ctx, dst); err != nil || oi.Size != 2048 {
		p.add("copy-object", Differs, "answered success, but the copy is not the source (%v)", err)
	} else {
		p.add("copy-object", Yes, "server-side copy of a 2 KiB object")
	}
	key := p.key("part-copy")
	id, err := p.st.CreateMultipart(ctx, key)
	if err != nil {
		p.add("upload-part-copy", NotChecked, "no multipart upload: %v", p.seen(err))
		return
	}
	p.startUpload(key, id)
	part, err := p.st.UploadPartCopy(ctx, key, id, 1, src.Key, storage.CopyOptions{Range: &storage.Range{Offset: 0, Length: 1024}})
	if err != nil {
		p.add("upload-part-copy", No, "%s", refusal(p.seen(err)))
		return
	}
	if _, err := p.st.CompleteMultipart(ctx, key, id, []storage.Part{part}); err != nil {
		p.add("upload-part-copy", No, "complete after a part copy %s", refusal(p.seen(err)))
	} else if st, err := p.st.Stat(ctx, key); err != nil || st.Size != 1024 {
		p.endUpload(key, id)
		p.add("upload-part-copy", Differs, "a 1 KiB ranged part copy made an object of %d bytes (%v)", st.Size, err)
	} else {
		p.endUpload(key, id)
		p.add("upload-part-copy", Yes, "a ranged part copied from an object")
	}
}

func checkPresign(ctx context.Context, p *prober) {
	data := []byte("presigned")
	oi, err := p.put(ctx, "presigned", data, storage.PutOptions{})
	if err != nil {
		p.add("presigned-url", NotChecked, "could not write the object: %v", err)
		return
	}
	u, err := p.st.Presign(ctx, oi.Key, 5*time.Minute)
	if err != nil {
		p.add("presigned-url", NotChecked, "%v", err)
		return
	}
	var buf bytes.Buffer
	if _, err := p.st.GetPresigned(ctx, u, storage.GetOptions{}, &buf); err != nil {
		p.add("presigned-url", No, "a GET by a presigned URL %s", refusal(p.seen(err)))
	} else if !bytes.Equal(buf.Bytes(), data) {
		p.add("presigned-url", Differs, "a GET by a presigned URL returned other bytes")
	} else {
		p.add("presigned-url", Yes, "a GET by a presigned URL (query-string SigV4)")
	}
}
