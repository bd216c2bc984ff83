package s3server_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/objbench/objbench/s3server"
)

// sums computes each flexible checksum as S3 prints it, with the
// standard library's hashes (CRC-64/NVME: polynomial 0xad93d23594c93659,
// reflected, as the NVMe specification defines it).
func sums(data []byte) map[string]string {
	out := map[string]string{}
	for alg, h := range map[string]hash.Hash{
		"crc32": crc32.NewIEEE(), "crc32c": crc32.New(crc32.MakeTable(crc32.Castagnoli)),
		"crc64nvme": crc64.New(crc64.MakeTable(0x9a6c9329ac4bc9b5)), "sha1": sha1.New(), "sha256": sha256.New(),
	} {
		h.Write(data)
		out[alg] = base64.StdEncoding.EncodeToString(h.Sum(nil))
	}
	return out
}

// The CRC-64/NVME the tests compute is the one its catalogue names: the
// check value of "123456789" is 0xae8b14860a799888.
func TestCRC64NVMECheckValue(t *testing.T) {
	got, _ := base64.StdEncoding.DecodeString(sums([]byte("123456789"))["crc64nvme"])
	if v := binary.BigEndian.Uint64(got); v != 0xae8b14860a799888 {
		t.Fatalf("CRC-64/NVME of 123456789 = %#x", v)
	}
}

// Every flexible checksum, as a header and as an aws-chunked trailer, is
// checked against the body: a right one is stored and returned on GET and
// HEAD with x-amz-checksum-mode: ENABLED (not without); a wrong one is
// refused with BadDigest and the key keeps what it had. Content-MD5 is
// checked likewise.
func TestChecksumsAreChecked(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		data := payload(100_000, 21)
		old := payload(10, 22)
		right := sums(data)
		wrong := sums(old)
		for alg := range right {
			for _, trailer := range []bool{false, true} {
				name := fmt.Sprintf("%s trailer=%v", alg, trailer)
				u := s.Endpoint() + "/" + bucket + "/sum-" + alg
				want(t, name+": first version", do(t, "PUT", u, old, nil), 200)
				want(t, name+": wrong sum", putWithSum(t, u, data, alg, wrong[alg], trailer), 400)
				if r := do(t, "GET", u, nil, nil); !bytes.Equal(r.body, old) {
					t.Fatalf("%s: a body with a wrong checksum replaced the object", name)
				}
				r := putWithSum(t, u, data, alg, right[alg], trailer)
				want(t, name+": right sum", r, 200)
				if got := r.header.Get("X-Amz-Checksum-" + alg); got != right[alg] {
					t.Errorf("%s: PUT answered checksum %q, want %q", name, got, right[alg])
				}
				for _, m := range []string{"GET", "HEAD"} {
					r := do(t, m, u, nil, map[string]string{"x-amz-checksum-mode": "ENABLED"})
					if r.header.Get("X-Amz-Checksum-"+alg) != right[alg] || r.header.Get("X-Amz-Checksum-Type") != "FULL_OBJECT" {
						t.Errorf("%s: %s with checksum mode: %v", name, m, r.header)
					}
					if r := do(t, m, u, nil, nil); r.header.Get("X-Amz-Checksum-"+alg) != "" {
						t.Errorf("%s: %s without checksum mode sent the checksum", name, m)
					}
				}
			}
		}
		u := s.Endpoint() + "/" + bucket + "/md5"
		bad := md5.Sum(old)
		r := do(t, "PUT", u, data, map[string]string{"Content-MD5": base64.StdEncoding.EncodeToString(bad[:])})
		want(t, "wrong Content-MD5", r, 400)
		if !strings.Contains(string(r.body), "BadDigest") {
			t.Errorf("wrong Content-MD5: %s", r.body)
		}
		want(t, "nothing stored", do(t, "GET", u, nil, nil), 404)
		good := md5.Sum(data)
		want(t, "right Content-MD5", do(t, "PUT", u, data, map[string]string{"Content-MD5": base64.StdEncoding.EncodeToString(good[:])}), 200)
		want(t, "two checksums", do(t, "PUT", u, data, map[string]string{"x-amz-checksum-crc32": right["crc32"], "x-amz-checksum-sha1": right["sha1"]}), 400)
	})
}

// putWithSum PUTs data with alg's checksum sum: in a header, or as the
// trailer of an unsigned aws-chunked body.
func putWithSum(t *testing.T, u string, data []byte, alg, sum string, trailer bool) response {
	t.Helper()
	if !trailer {
		return do(t, "PUT", u, data, map[string]string{"x-amz-checksum-" + alg: sum})
	}
	var b bytes.Buffer
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 30_000)
		fmt.Fprintf(&b, "%x\r\n%s\r\n", n, rest[:n])
		rest = rest[n:]
	}
	fmt.Fprintf(&b, "0\r\nx-amz-checksum-%s:%s\r\n\r\n", alg, sum)
	return do(t, "PUT", u, b.Bytes(), map[string]string{
		"X-Amz-Content-Sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "Content-Encoding": "aws-chunked",
		"X-Amz-Decoded-Content-Length": fmt.Sprint(len(data)), "X-Amz-Trailer": "x-amz-checksum-" + alg,
	})
}

// A multipart upload's checksum: COMPOSITE (the checksum of the parts'
// checksums, "-<parts>") or FULL_OBJECT (the CRC of the whole object,
// combined from the parts'), each part checked as it arrives, the parts'
// values checked at completion, and the object's returned on GET.
func TestMultipartChecksums(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		parts := [][]byte{payload(5<<20, 31), payload(5<<20+17, 32), payload(1000, 33)}
		whole := bytes.Join(parts, nil)
		for _, c := range []struct{ alg, typ string }{
			{"crc32", "COMPOSITE"}, {"crc32", "FULL_OBJECT"}, {"crc32c", "FULL_OBJECT"},
			{"crc64nvme", "FULL_OBJECT"}, {"sha256", "COMPOSITE"}, {"sha1", "COMPOSITE"},
		} {
			name := c.alg + "/" + c.typ
			u := s.Endpoint() + "/" + bucket + "/mp-" + c.alg + "-" + c.typ
			r := do(t, "POST", u+"?uploads", nil, map[string]string{"x-amz-checksum-algorithm": strings.ToUpper(c.alg), "x-amz-checksum-type": c.typ})
			want(t, name+": create", r, 200)
			var created struct{ UploadId string }
			decodeXML(t, r.body, &created)
			id := created.UploadId
			var list strings.Builder
			var raw []byte
			for i, p := range parts {
				sum := sums(p)[c.alg]
				pu := fmt.Sprintf("%s?partNumber=%d&uploadId=%s", u, i+1, id)
				want(t, name+": part with a wrong sum", do(t, "PUT", pu, p, map[string]string{"x-amz-checksum-" + c.alg: sums(parts[(i+1)%3])[c.alg]}), 400)
				r := do(t, "PUT", pu, p, map[string]string{"x-amz-checksum-" + c.alg: sum})
				want(t, name+": part", r, 200)
				tag := strings.ToUpper(c.alg[:3]) + c.alg[3:]
				if c.alg == "crc32c" || c.alg == "crc64nvme" {
					tag = strings.ToUpper(c.alg)
				}
				fmt.Fprintf(&list, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag><Checksum%s>%s</Checksum%s></Part>",
					i+1, r.header.Get("ETag"), tag, sum, tag)
				b, _ := base64.StdEncoding.DecodeString(sum)
				raw = append(raw, b...)
			}
			wantSum := sums(whole)[c.alg]
			if c.typ == "COMPOSITE" {
				wantSum = sums(raw)[c.alg] + "-3"
			}
			r = do(t, "POST", u+"?uploadId="+id, []byte("<CompleteMultipartUpload>"+list.String()+"</CompleteMultipartUpload>"), nil)
			want(t, name+": complete", r, 200)
			if !strings.Contains(string(r.body), ">"+wantSum+"<") || !strings.Contains(string(r.body), c.typ) {
				t.Errorf("%s: completion %s, want checksum %s", name, r.body, wantSum)
			}
			r = do(t, "HEAD", u, nil, map[string]string{"x-amz-checksum-mode": "ENABLED"})
			if r.header.Get("X-Amz-Checksum-"+c.alg) != wantSum || r.header.Get("X-Amz-Checksum-Type") != c.typ {
				t.Errorf("%s: HEAD %v, want %s", name, r.header, wantSum)
			}
		}
		u := s.Endpoint() + "/" + bucket + "/mp-bad-type"
		want(t, "CRC64NVME composite", do(t, "POST", u+"?uploads", nil, map[string]string{"x-amz-checksum-algorithm": "CRC64NVME", "x-amz-checksum-type": "COMPOSITE"}), 400)
		want(t, "SHA256 full object", do(t, "POST", u+"?uploads", nil, map[string]string{"x-amz-checksum-algorithm": "SHA256", "x-amz-checksum-type": "FULL_OBJECT"}), 400)
	})
}

// An object written without a checksum has S3's default, CRC64NVME of the
// whole object, on a read that asks for checksums (a multipart one too).
func TestDefaultChecksum(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		u := s.Endpoint() + "/" + bucket + "/plain"
		data := payload(300_000, 71)
		want(t, "put", do(t, "PUT", u, data, nil), 200)
		for range 2 { // computed once, then kept
			r := do(t, "HEAD", u, nil, map[string]string{"x-amz-checksum-mode": "ENABLED"})
			if r.header.Get("X-Amz-Checksum-Crc64nvme") != sums(data)["crc64nvme"] || r.header.Get("X-Amz-Checksum-Type") != "FULL_OBJECT" {
				t.Fatalf("HEAD with checksum mode: %v", r.header)
			}
		}
		mp := s.Endpoint() + "/" + bucket + "/plain-mp"
		id := createUpload(t, mp)
		parts := [][]byte{payload(5<<20, 72), payload(100, 73)}
		etags := []string{uploadPart(t, mp, id, 1, parts[0], nil), uploadPart(t, mp, id, 2, parts[1], nil)}
		want(t, "complete", completeUpload(t, mp, id, etags), 200)
		r := do(t, "GET", mp, nil, map[string]string{"x-amz-checksum-mode": "ENABLED"})
		if r.header.Get("X-Amz-Checksum-Crc64nvme") != sums(bytes.Join(parts, nil))["crc64nvme"] {
			t.Fatalf("GET of a multipart object with checksum mode: %v", r.header)
		}
	})
}

// A signed aws-chunked body with a signed trailer
// (STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER): stored when the trailer's
// checksum and signature hold; refused when the checksum does not match
// the body (BadDigest) or the trailer's signature is not the chain's
// (SignatureDoesNotMatch), and nothing stored.
func TestSignedTrailer(t *testing.T) {
	s := start(t, s3server.Config{Buckets: []string{bucket}})
	data := payload(70_000, 81)
	right := sums(data)["crc32"]
	for _, c := range []struct {
		name, sum string
		forge     bool
		status    int
		code      string
	}{
		{"good", right, false, 200, ""},
		{"wrong checksum", sums(data[1:])["crc32"], false, 400, "BadDigest"},
		{"forged trailer", right, true, 403, "SignatureDoesNotMatch"},
	} {
		u := s.Endpoint() + "/" + bucket + "/trailer-" + strings.ReplaceAll(c.name, " ", "-")
		r := signedTrailerPut(t, s, u, data, c.sum, c.forge)
		if r.status != c.status || !strings.Contains(string(r.body), c.code) {
			t.Errorf("%s: %d %s", c.name, r.status, r.body)
		}
		got := do(t, "GET", u, nil, map[string]string{"x-amz-checksum-mode": "ENABLED"})
		switch {
		case c.status == 200 && (!bytes.Equal(got.body, data) || got.header.Get("X-Amz-Checksum-Crc32") != right):
			t.Errorf("%s: GET %d, %d bytes, checksum %q", c.name, got.status, len(got.body), got.header.Get("X-Amz-Checksum-Crc32"))
		case c.status != 200 && got.status != 404:
			t.Errorf("%s: a refused upload was stored (%d)", c.name, got.status)
		}
	}
}

// signedTrailerPut uploads data with signed chunks and a signed CRC32
// trailer of value sum, signed as AWS documents it ("Signature
// calculations for the Authorization header: transferring payload in
// multiple chunks", trailing headers); forge signs the trailer with a
// wrong previous signature.
func signedTrailerPut(t *testing.T, s *s3server.Server, u string, data []byte, sum string, forge bool) response {
	t.Helper()
	const sha = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
	req, _ := http.NewRequestWithContext(t.Context(), "PUT", u, nil)
	req.Header.Set("Content-Encoding", "aws-chunked")
	req.Header.Set("X-Amz-Decoded-Content-Length", fmt.Sprint(len(data)))
	req.Header.Set("X-Amz-Trailer", "x-amz-checksum-crc32")
	req.Header.Set("X-Amz-Content-Sha256", sha)
	now := time.Now().UTC()
	creds := aws.Credentials{AccessKeyID: s.AccessKey(), SecretAccessKey: s.SecretKey()}
	if err := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }).SignHTTP(t.Context(), creds, req, sha, "s3", "us-east-1", now); err != nil {
		t.Fatal(err)
	}
	_, seedHex, _ := strings.Cut(req.Header.Get("Authorization"), "Signature=")
	seed, _ := hex.DecodeString(seedHex)
	chain := v4.NewStreamSigner(creds, "s3", "us-east-1", seed)
	var b bytes.Buffer
	prev := seedHex
	for rest := data; ; {
		n := min(len(rest), 30_000)
		sig, err := chain.GetSignature(t.Context(), nil, rest[:n], now)
		if err != nil {
			t.Fatal(err)
		}
		prev = hex.EncodeToString(sig)
		fmt.Fprintf(&b, "%x;chunk-signature=%s\r\n", n, prev)
		if n == 0 {
			break
		}
		b.Write(rest[:n])
		b.WriteString("\r\n")
		rest = rest[n:]
	}
	trailer := "x-amz-checksum-crc32:" + sum + "\n"
	if forge {
		prev = strings.Repeat("0", 64)
	}
	key := []byte("AWS4" + s.SecretKey())
	for _, part := range []string{now.Format("20060102"), "us-east-1", "s3", "aws4_request"} {
		key = hmacSum(key, part)
	}
	th := sha256.Sum256([]byte(trailer))
	sts := "AWS4-HMAC-SHA256-TRAILER\n" + now.Format("20060102T150405Z") + "\n" + now.Format("20060102") + "/us-east-1/s3/aws4_request\n" +
		prev + "\n" + hex.EncodeToString(th[:])
	fmt.Fprintf(&b, "x-amz-checksum-crc32:%s\r\nx-amz-trailer-signature:%s\r\n\r\n", sum, hex.EncodeToString(hmacSum(key, sts)))
	req.ContentLength = int64(b.Len())
	req.Body = io.NopCloser(&b)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, body}
}

func hmacSum(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}
