package probe_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/objbench/objbench/probe"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage/s3"
)

func TestShowEmbedded(t *testing.T) {
	srv, err := s3server.Start(context.Background(), s3server.Config{Buckets: []string{"probe-keep"}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background())
	c := s3.Config{Endpoint: srv.Endpoint(), Bucket: "probe-own", AccessKey: srv.AccessKey(), SecretKey: srv.SecretKey(), Region: "us-east-1", PathStyle: true}
	rep, err := probe.Run(context.Background(), c, probe.Options{CreateBucket: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	probe.WriteTable(&b, rep)
	t.Log("\n" + b.String())
}
