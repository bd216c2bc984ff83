package s3server_test

import (
	"bytes"
	"encoding/xml"
	"slices"
	"strings"
	"testing"

	"github.com/objbench/objbench/s3server"
)

// allSubResources is every query literal that selects an S3 operation in
// the S3 API's model (botocore's data/s3/2006-03-01/service-2.json, the
// requestUri of each operation), with the modifiers versionId, partNumber
// and uploadId, and two names S3 does not have.
var allSubResources = []string{
	"abac", "accelerate", "acl", "analytics", "attributes", "cors", "delete", "encryption",
	"intelligent-tiering", "inventory", "legal-hold", "lifecycle", "list-type=2", "location",
	"logging", "metadataConfiguration", "metadataInventoryTable", "metadataJournalTable",
	"metadataTable", "metrics", "notification", "object-lock", "ownershipControls", "policy",
	"policyStatus", "publicAccessBlock", "renameObject", "replication", "requestPayment",
	"restore", "retention", "select&select-type=2", "select", "session", "tagging", "torrent",
	"uploads", "versioning", "versions", "website",
	"versionId=v1", "versionId=null", "versionId", "partNumber=1", "uploadId", "uploadId=nope",
	"uploadId=nope&partNumber=1", "tagging&versionId=v1", "acl&versionId=v1",
	"no-such-thing", "tagging&acl",
}

// served are the requests with a sub-resource that the server implements
// (by "METHOD target ?query"); every other one must be refused. None of
// them may change the object or a bucket either (their arguments make
// them fail or read only, or change only tags), except deleting the null
// version, which deletes the object (deletes).
var served = []string{
	"GET bucket ?list-type=2", "GET bucket ?location", "GET bucket ?uploads",
	"POST bucket ?delete", // the body is not a Delete request: MalformedXML
	"GET bucket ?versioning", "PUT bucket ?versioning", "GET bucket ?versions",
	"POST object ?uploads", "GET object ?uploadId=nope", "POST object ?uploadId=nope",
	"DELETE object ?uploadId=nope", "PUT object ?uploadId=nope&partNumber=1",
	"GET object ?tagging", "PUT object ?tagging", "DELETE object ?tagging", "GET object ?attributes",
	"GET object ?tagging&versionId=v1", "PUT object ?tagging&versionId=v1", "DELETE object ?tagging&versionId=v1",
	"GET object ?versionId=v1", "HEAD object ?versionId=v1", "DELETE object ?versionId=v1",
	"GET object ?versionId=null", "HEAD object ?versionId=null", deletes, "GET object ?partNumber=1", "HEAD object ?partNumber=1",
}

const deletes = "DELETE object ?versionId=null"

// No request with a sub-resource the server does not implement changes
// anything: each S3 sub-resource, sent with each method to a bucket (empty
// or not) and to an object, is refused, and afterwards the object has its
// bytes and ETag and both buckets have what they had. The server once took
// `PUT key?tagging` for PutObject (the object became the tagging XML),
// `DELETE bucket?cors` for DeleteBucket and `PUT bucket?policy` for
// CreateBucket.
func TestSubResourcesChangeNothing(t *testing.T) {
	backends(t, func(t *testing.T, s *s3server.Server) {
		base := s.Endpoint() + "/" + bucket
		empty := s.Endpoint() + "/empty"
		want(t, "create the empty bucket", do(t, "PUT", empty, nil, nil), 200)
		data := payload(1000, 7)
		want(t, "put", do(t, "PUT", base+"/k", data, nil), 200)
		body := []byte(`<Tagging><TagSet><Tag><Key>a</Key><Value>b</Value></Tag></TagSet></Tagging>`)
		for _, sub := range allSubResources {
			for _, method := range []string{"GET", "HEAD", "PUT", "POST", "DELETE", "PATCH"} {
				for _, tg := range []struct{ name, url string }{{"bucket", base}, {"bucket", empty}, {"object", base + "/k"}} {
					what := method + " " + tg.name + " ?" + sub
					var b []byte
					if method == "PUT" || method == "POST" {
						b = body
					}
					r := do(t, method, tg.url+"?"+sub, b, nil)
					refused := 501
					if sub == "uploadId" || sub == "versionId" {
						refused = 400 // InvalidArgument: an upload or version with no ID
					}
					if !slices.Contains(served, what) && r.status != refused {
						t.Errorf("%s (%s): status %d, want %d; body %s", what, tg.url, r.status, refused, r.body)
					}
					if method != "HEAD" && r.status >= 300 && !strings.Contains(string(r.body), "<Code>") {
						t.Errorf("%s: status %d without an S3 error body: %s", what, r.status, r.body)
					}
					if what == deletes {
						want(t, "put again", do(t, "PUT", base+"/k", data, nil), 200)
					}
					unchanged(t, what, base, empty, data)
				}
			}
		}
	})
}

// unchanged fails the test unless bucket base holds exactly k with data
// and bucket empty exists and holds nothing.
func unchanged(t *testing.T, what, base, empty string, data []byte) {
	t.Helper()
	r := do(t, "GET", base+"/k", nil, nil)
	if r.status != 200 || !bytes.Equal(r.body, data) || unquote(r.header.Get("ETag")) != md5hex(data) {
		t.Fatalf("after %s: the object reads %d, %d bytes, ETag %s", what, r.status, len(r.body), r.header.Get("ETag"))
	}
	for u, keys := range map[string][]string{base: {"k"}, empty: nil} {
		r := do(t, "GET", u+"?list-type=2", nil, nil)
		var list struct {
			Contents []struct{ Key string }
		}
		if r.status != 200 {
			t.Fatalf("after %s: listing %s: %d %s", what, u, r.status, r.body)
		}
		if err := xml.Unmarshal(r.body, &list); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range list.Contents {
			got = append(got, c.Key)
		}
		if !slices.Equal(got, keys) {
			t.Fatalf("after %s: %s lists %q, want %q", what, u, got, keys)
		}
	}
}
