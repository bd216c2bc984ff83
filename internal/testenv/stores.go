package testenv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Server is a running S3 server of another project (MinIO, versitygw,
// SeaweedFS, Ceph RGW) owned by one test, on 127.0.0.1.
type Server struct {
	Name      string // one of StoreNames
	Endpoint  string // http://127.0.0.1:PORT
	AccessKey string
	SecretKey string
	Version   string // the server's own version, as its binary or package says
}

// StoreNames are the stores StartStore starts, in the order the tests
// run them.
func StoreNames() []string { return []string{"minio", "versitygw", "seaweedfs", "ceph-rgw"} }

// storeKind says how a store is found, required and started.
type storeKind struct {
	require string // the OBJBENCH_REQUIRE_* variable that makes a missing store fail the test
	install string // what installs it
	start   func(tb testing.TB) (*Server, error)
	// missing says what this machine lacks to run the store ("" if nothing).
	missing func() string
}

func storeKinds() map[string]storeKind {
	return map[string]storeKind{
		"minio": {"OBJBENCH_REQUIRE_MINIO", "scripts/install-minio.sh", startMinIOServer, func() string {
			if _, err := MinIOBinary(); err != nil {
				return "the minio binary (" + err.Error() + ")"
			}
			return ""
		}},
		"versitygw": {"OBJBENCH_REQUIRE_VERSITYGW", "scripts/install-versitygw.sh", startVersityGW, goBinMissing("versitygw", "OBJBENCH_VERSITYGW")},
		"seaweedfs": {"OBJBENCH_REQUIRE_SEAWEEDFS", "scripts/install-seaweedfs.sh", startSeaweedFS, goBinMissing("weed", "OBJBENCH_WEED")},
		"ceph-rgw":  {"OBJBENCH_REQUIRE_CEPH", "scripts/install-ceph.sh", startCephRGW, cephMissing},
	}
}

// StartStore starts the named store for tb, stopped when the test ends.
// When this machine lacks what the store needs, the test is skipped with
// a message naming it, unless the store's OBJBENCH_REQUIRE_* variable is
// set (scripts/test.sh sets those of the stores it installs): then it
// fails. A store that is installed but does not start fails the test.
func StartStore(tb testing.TB, name string) *Server {
	tb.Helper()
	k, ok := storeKinds()[name]
	if !ok {
		tb.Fatalf("unknown store %q (known: %v)", name, StoreNames())
	}
	if m := k.missing(); m != "" {
		if os.Getenv(k.require) != "" {
			tb.Fatalf("%s is required (%s) but this machine lacks %s: run %s", name, k.require, m, k.install)
		}
		tb.Skipf("skipping the %s test: this machine lacks %s (%s installs it; %s=1 makes this a failure)", name, m, k.install, k.require)
	}
	s, err := k.start(tb)
	if err != nil {
		tb.Fatalf("start %s: %v", name, err)
	}
	return s
}

func startMinIOServer(tb testing.TB) (*Server, error) {
	m := StartMinIO(tb)
	return &Server{Name: "minio", Endpoint: m.Endpoint, AccessKey: m.AccessKey, SecretKey: m.SecretKey,
		Version: goModuleVersion(m.bin, "github.com/minio/minio")}, nil
}

// goBinary finds a Go-installed server: $envVar, then GOPATH/bin, then PATH.
func goBinary(name, envVar string) (string, error) {
	if p := os.Getenv(envVar); p != "" {
		return p, nil
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return exec.LookPath(name)
}

func goBinMissing(name, envVar string) func() string {
	return func() string {
		if _, err := goBinary(name, envVar); err != nil {
			return "the " + name + " binary (not in $" + envVar + ", GOPATH/bin or PATH)"
		}
		return ""
	}
}

// goModuleVersion is the version of module that bin was built from, as
// `go version -m` reads it ("" if it cannot say).
func goModuleVersion(bin, module string) string {
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && (f[0] == "mod" || f[0] == "dep") && f[1] == module {
			return f[2]
		}
	}
	return ""
}

// process is a server process a test started; stop ends it.
type process struct {
	cancel context.CancelFunc
	done   chan struct{} // closed once the process has exited
	err    error         // how it exited, once done is closed
	logs   *serverLog
}

// stop ends the process and waits for it (at once when it has exited).
func (p *process) stop() {
	p.cancel()
	<-p.done
}

// startProcess runs cmd (made with exec.CommandContext on ctx, whose
// cancel is passed) with its output kept for error messages.
func startProcess(cmd *exec.Cmd, cancel context.CancelFunc) (*process, error) {
	p := &process{cancel: cancel, done: make(chan struct{}), logs: &serverLog{}}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// waitS3 polls endpoint through client until it answers an S3 request
// with anything but a 5xx (a signed-less GET of a missing bucket: 403 or
// 404 once the server is up; MinIO answers 503 until its object layer is
// ready, after its health endpoints say it is), p exits, or limit passes.
// On an error it stops p.
func waitS3(client *http.Client, endpoint string, p *process, limit time.Duration) error {
	why := fmt.Sprintf("no S3 answer at %s after %v", endpoint, limit)
poll:
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); {
		select {
		case <-p.done:
			why = fmt.Sprintf("exited: %v", p.err)
			break poll
		default:
		}
		resp, err := client.Get(endpoint + "/objbench-readiness-probe/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, not synchronising on time
	}
	p.stop()
	return fmt.Errorf("%s; it said: %s", why, p.logs)
}

// serverLog is a server process's output, kept while a test may read it:
// its first MiB, where a failed start says why.
type serverLog struct{ Buffer }

func (l *serverLog) Write(p []byte) (int, error) {
	if l.Len() > 1<<20 {
		return len(p), nil
	}
	return l.Buffer.Write(p)
}

// String is the log's first 4000 bytes, for an error message.
func (l *serverLog) String() string {
	out := l.Buffer.String()
	if len(out) > 4000 {
		out = out[:4000] + "\n[...]"
	}
	return out
}

// retryPorts runs start up to three times: a free port can be taken
// between probing and binding.
func retryPorts(start func() (*Server, error)) (*Server, error) {
	var errs []error
	for range 3 {
		s, err := start()
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}
