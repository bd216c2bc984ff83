package cli_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/cli"
	"github.com/objbench/objbench/internal/testenv"
)

// objbench server --tls prints an https endpoint and the CA file (also as
// AWS_CA_BUNDLE), and a client trusting that file reaches it.
func TestServerTLS(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	ctx, cancel := context.WithCancel(context.Background())
	var out testenv.Buffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Execute(ctx, cli.Env{Args: []string{"server", "--tls", "--cert-dir", dir, "--listen", "127.0.0.1:0", "--no-auth"},
			Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "Ctrl-C") {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no start-up message: %q", out.String())
		}
		time.Sleep(10 * time.Millisecond) // polling the output for a condition
	}
	text := out.String()
	ca := filepath.Join(dir, "ca.pem")
	ep := regexp.MustCompile(`endpoint:\s+(\S+)`).FindStringSubmatch(text)
	if ep == nil || !strings.HasPrefix(ep[1], "https://127.0.0.1:") ||
		!strings.Contains(text, "CA file:   "+ca) || !strings.Contains(text, "AWS_CA_BUNDLE="+ca) {
		t.Errorf("start-up message:\n%s", text)
	}
	if ep != nil {
		pem, err := os.ReadFile(ca)
		if err != nil {
			t.Fatal(err)
		}
		roots := x509.NewCertPool()
		roots.AppendCertsFromPEM(pem)
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
		resp, err := c.Get(ep[1] + "/objbench/")
		if err != nil {
			t.Errorf("a client trusting %s: %v", ca, err)
		} else {
			resp.Body.Close()
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after interrupt", code)
	}
}

func TestServerTLSUsage(t *testing.T) {
	for _, args := range [][]string{
		{"server", "--cert-dir", "/tmp/x"},
		{"server", "--tls", "--delay", "10ms"},
	} {
		if code, _, errs := execute(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errs)
		}
	}
}
