package s3_test

import (
	"context"
	"testing"

	"github.com/objbench/objbench/internal/testenv"
	"github.com/objbench/objbench/s3server"
	"github.com/objbench/objbench/storage"
	"github.com/objbench/objbench/storage/s3"
	"github.com/objbench/objbench/storage/storagetest"
)

var clients = []string{"direct", "std"}

func withClient(name string) func(*s3.Config) { return func(c *s3.Config) { c.HTTPClient = name } }

// The suite runs against gofakes3's reference backend, objbench's embedded
// server (both backends), a real MinIO, versitygw, SeaweedFS and Ceph RGW,
// over both HTTP clients.
func TestConformance(t *testing.T) {
	for _, client := range clients {
		t.Run("gofakes3/"+client, func(t *testing.T) {
			s := bucketStore(t, withClient(client)) // one bucket shared by all subtests, as on a real endpoint
			storagetest.Run(t, func(*testing.T) storage.Store { return s })
		})
	}
	for _, backend := range []string{"memory", "dir"} {
		t.Run("embedded-"+backend, func(t *testing.T) {
			c := s3server.Config{Listen: "127.0.0.1:0", Buckets: []string{"conf"}, Quiet: true}
			if backend == "dir" {
				c.DataDir = t.TempDir()
			}
			srv, err := s3server.Start(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv.Close(context.Background()) })
			for _, client := range clients {
				t.Run(client, func(t *testing.T) {
					s := connect(t, s3.Config{Endpoint: srv.Endpoint(), Bucket: "conf", AccessKey: srv.AccessKey(),
						SecretKey: srv.SecretKey(), HTTPClient: client})
					storagetest.Run(t, func(*testing.T) storage.Store { return s })
				})
			}
		})
	}
	t.Run("minio", func(t *testing.T) {
		m := testenv.StartMinIO(t)
		// "many" is the direct client as it runs with hundreds of workers:
		// waiting for each answer without a read buffer.
		for _, client := range append(clients, "many") {
			t.Run(client, func(t *testing.T) {
				c := s3.Config{Endpoint: m.Endpoint, Bucket: "conf-" + client, AccessKey: m.AccessKey,
					SecretKey: m.SecretKey, HTTPClient: client}
				if client == "many" {
					c.HTTPClient, c.MaxConns = "direct", 512
				}
				s := connect(t, c)
				if err := s.CreateBucket(context.Background()); err != nil {
					t.Fatal(err)
				}
				storagetest.Run(t, func(*testing.T) storage.Store { return s })
			})
		}
	})
	// The stores people run besides MinIO, started by the project's
	// scripts (scripts/install-*.sh, scripts/ceph-rgw.sh); each names
	// what it lacks when it cannot run here.
	for _, name := range []string{"versitygw", "seaweedfs", "ceph-rgw"} {
		t.Run(name, func(t *testing.T) {
			srv := testenv.StartStore(t, name)
			for _, client := range clients {
				t.Run(client, func(t *testing.T) {
					s := connect(t, s3.Config{Endpoint: srv.Endpoint, Bucket: "conf-" + client, AccessKey: srv.AccessKey,
						SecretKey: srv.SecretKey, HTTPClient: client})
					if err := s.CreateBucket(context.Background()); err != nil {
						t.Fatal(err)
					}
					storagetest.Run(t, func(*testing.T) storage.Store { return s })
				})
			}
		})
	}
}

func connect(t *testing.T, c s3.Config) *s3.Store {
	t.Helper()
	c.PathStyle, c.Region = true, "us-east-1"
	s, err := s3.New(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
