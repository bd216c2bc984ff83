package s3server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/objbench/objbench/s3server"
)

// Start a throwaway in-memory server on a free loopback port, store an
// object with a plain HTTP request and read it back. Plain requests are
// unsigned: this server is told to check no signatures (NoAuth, loopback
// only); by default it checks them as S3 does.
func ExampleStart() {
	ctx := context.Background()
	srv, err := s3server.Start(ctx, s3server.Config{Buckets: []string{"demo"}, NoAuth: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close(ctx)

	req, _ := http.NewRequest("PUT", srv.Endpoint()+"/demo/hello.txt", strings.NewReader("hello"))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		fmt.Println("put:", resp.Status)
	}
	resp, err := http.Get(srv.Endpoint() + "/demo/hello.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println("get:", resp.Status, string(body), resp.Header.Get("ETag"))
	// Output:
	// put: 200 OK
	// get: 200 OK hello "5d41402abc4b2a76b9719d911017c592"
}
