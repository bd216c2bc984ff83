package s3

import (
	"encoding/xml"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func page(truncated, token string, keys ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>p/</Prefix>` +
		`<KeyCount>` + fmt.Sprint(len(keys)) + `</KeyCount><MaxKeys>1000</MaxKeys><EncodingType>url</EncodingType>` +
		`<IsTruncated>` + truncated + `</IsTruncated>`)
	if token != "" {
		b.WriteString(`<ContinuationToken>old</ContinuationToken><NextContinuationToken>` + token + `</NextContinuationToken>`)
	}
	for i, k := range keys {
		fmt.Fprintf(&b, `<Contents><Key>%s</Key><LastModified>2026-11-22T12:0%d:00.000Z</LastModified>`+
			`<ETag>&#34;d41d8cd98f00b204e9800998ecf8427e&#34;</ETag><Size>%d</Size>`+
			`<Owner><ID>02d6176db174dc93cb1b899f7c6078f08654445fe8cf1b6ce98d8855f66bdbf4</ID><DisplayName>minio</DisplayName></Owner>`+
			`<StorageClass>STANDARD</StorageClass></Contents>`, k, i%10, 4096*i)
	}
	b.WriteString(`</ListBucketResult>`)
	return b.String()
}

// The fast scanner must read exactly what encoding/xml reads.
func TestScanListPageAgreesWithEncodingXML(t *testing.T) {
	for _, body := range []string{
		page("false", ""),
		page("true", "tok&amp;en==", "a", "dir/b", "c%20d"),
		page("True", "x", "k&amp;&lt;&gt;&quot;&apos;", "emoji&#x1F600;", "tab&#9;"),
		page("1", "y", strings.Repeat("k", 1024)),
		strings.ReplaceAll(page("false", "", "a", "b"), "><", ">\n  <"), // pretty-printed
	} {
		fast, err := scanListPage([]byte(body))
		if err != nil {
			t.Fatalf("scanner refused a plain S3 page: %v\n%s", err, body)
		}
		var ref listPage
		if err := xml.Unmarshal([]byte(body), &ref); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*fast, ref) {
			t.Errorf("scanner:\n%+v\nencoding/xml:\n%+v", *fast, ref)
		}
	}
}

func TestScanListPageHandsOddPagesToEncodingXML(t *testing.T) {
	for _, body := range []string{
		`<ListBucketResult><Contents><Key><![CDATA[a]]></Key></Contents></ListBucketResult>`,
		`<x:ListBucketResult xmlns:x="s3"><x:Contents><x:Key>a</x:Key></x:Contents></x:ListBucketResult>`,
		`<ListBucketResult><Contents><Key>a&bogus;</Key><Size>1</Size></Contents></ListBucketResult>`,
	} {
		if _, err := scanListPage([]byte(body)); err == nil && !strings.Contains(body, "x:") {
			t.Errorf("scanner accepted %q", body)
		}
		if _, err := decodeListPage([]byte(body)); err != nil && !strings.Contains(body, "bogus") {
			t.Errorf("decodeListPage(%q): %v", body, err)
		}
	}
}

// Pages that are well-formed XML but not S3's usual layout: whatever path
// decodeListPage takes, it must read what encoding/xml reads. The first case
// is the fuzzer's (a repeated field keeps its last value); the others are
// places a substring search would see an element encoding/xml does not.
func TestDecodeListPageOddPagesAgreeWithEncodingXML(t *testing.T) {
	entry := `<Contents><Key>k</Key><Size>1</Size></Contents>`
	for name, body := range map[string]string{
		"repeated key":         `<ListBucketResult><Contents><Key>0</Key><Key></Key><Size>0</Size></Contents></ListBucketResult>`,
		"repeated flag":        `<ListBucketResult><IsTruncated>true</IsTruncated><IsTruncated>false</IsTruncated></ListBucketResult>`,
		"key in a child":       `<ListBucketResult><Contents><Owner><Key>o</Key></Owner><Size>1</Size></Contents></ListBucketResult>`,
		"entry in a child":     `<ListBucketResult><CommonPrefixes>` + entry + `</CommonPrefixes></ListBucketResult>`,
		"token in a child":     `<ListBucketResult><X><NextContinuationToken>t</NextContinuationToken></X></ListBucketResult>`,
		"entry in a comment":   `<ListBucketResult><!--` + entry + `-->` + entry + `</ListBucketResult>`,
		"space in a tag":       `<ListBucketResult><Contents ><Key>k</Key><Size>1</Size></Contents >` + entry + `</ListBucketResult>`,
		"attribute on entry":   `<ListBucketResult><Contents a="1"><Key>k</Key><Size >1</Size></Contents></ListBucketResult>`,
		"prefixed field":       `<ListBucketResult xmlns:x="s3"><Contents><x:Key>k</x:Key><Size>1</Size></Contents></ListBucketResult>`,
		"carriage return":      "<ListBucketResult><Contents><Key>a\r\nb\rc</Key><Size>1</Size></Contents></ListBucketResult>",
		"entry after the root": `<ListBucketResult>` + entry + `</ListBucketResult>` + entry,
		"root attribute >":     `<ListBucketResult a="x>y" b='>'>` + entry + `</ListBucketResult>`,
		"other root":           `<ListAllMyBucketsResult>` + entry + `</ListAllMyBucketsResult>`,
	} {
		var ref listPage
		if err := xml.Unmarshal([]byte(body), &ref); err != nil {
			t.Fatalf("%s: encoding/xml refused the case: %v", name, err)
		}
		got, err := decodeListPage([]byte(body))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(*got, ref) {
			t.Errorf("%s: decodeListPage\n%+v\nencoding/xml\n%+v", name, *got, ref)
		}
	}
}

func FuzzScanListPage(f *testing.F) {
	f.Add(page("true", "t", "a", "b&amp;c"))
	f.Add(page("false", ""))
	f.Add(`<?xml version="1.0"?><ListBucketResult a="b"><!--<Contents>--><X><Contents><Key>o</Key></Contents></X>` +
		`<Contents><Owner><Key>k</Key></Owner><Key>a</Key><Size>1</Size></Contents></ListBucketResult>`)
	f.Fuzz(func(t *testing.T, body string) {
		fast, err := scanListPage([]byte(body))
		if err != nil {
			return
		}
		var ref listPage
		if xml.Unmarshal([]byte(body), &ref) != nil {
			return // the scanner is more lenient about the document around the fields
		}
		// A page both accept must decode the same: a different entry
		// count is a divergence like any other (an entry lost or invented
		// would skew a LIST's object count).
		if !reflect.DeepEqual(*fast, ref) {
			t.Fatalf("scanner %+v\nencoding/xml %+v", *fast, ref)
		}
	})
}

func BenchmarkDecodeListPage(b *testing.B) {
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("objbench/20261122-120000-abcdef/get/%08d", i)
	}
	body := []byte(page("true", "token", keys...))
	b.Run("scanner", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeListPage(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-xml", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var p listPage
			if err := xml.Unmarshal(body, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
