package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startVersityGW runs versitygw's posix backend over a temporary
// directory, with root credentials passed in its environment.
func startVersityGW(tb testing.TB) (*Server, error) {
	bin, err := goBinary("versitygw", "OBJBENCH_VERSITYGW")
	if err != nil {
		return nil, err
	}
	dir := tb.TempDir()
	return retryPorts(func() (*Server, error) {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s := &Server{Name: "versitygw", Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port),
			AccessKey: "ak" + randHex(8), SecretKey: "sk" + randHex(16), Version: goModuleVersion(bin, "github.com/versity/versitygw")}
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.CommandContext(ctx, bin, "--port", fmt.Sprintf("127.0.0.1:%d", port), "--quiet", "posix", dir)
		cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s.AccessKey, "ROOT_SECRET_KEY="+s.SecretKey)
		return s, runServer(tb, s, cmd, cancel, 60*time.Second)
	})
}

// startSeaweedFS runs `weed server -s3` (a master, a volume server, a
// filer and the S3 gateway in one process) over a temporary directory,
// every port on 127.0.0.1, and one S3 identity from a config file.
func startSeaweedFS(tb testing.TB) (*Server, error) {
	bin, err := goBinary("weed", "OBJBENCH_WEED")
	if err != nil {
		return nil, err
	}
	return retryPorts(func() (*Server, error) {
		ports, err := freePorts(8)
		if err != nil {
			return nil, err
		}
		dir := tb.TempDir()
		s := &Server{Name: "seaweedfs", Endpoint: fmt.Sprintf("http://127.0.0.1:%d", ports[0]),
			AccessKey: "ak" + randHex(8), SecretKey: "sk" + randHex(16), Version: goModuleVersion(bin, "github.com/seaweedfs/seaweedfs")}
		conf, err := json.Marshal(map[string]any{"identities": []any{map[string]any{
			"name":        "objbench",
			"credentials": []any{map[string]string{"accessKey": s.AccessKey, "secretKey": s.SecretKey}},
			"actions":     []string{"Admin", "Read", "List", "Tagging", "Write"},
		}}})
		if err != nil {
			return nil, err
		}
		confFile := filepath.Join(dir, "s3.json")
		if err := os.WriteFile(confFile, conf, 0o600); err != nil {
			return nil, err
		}
		data := filepath.Join(dir, "data")
		if err := os.Mkdir(data, 0o755); err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		p := func(i int) string { return fmt.Sprint(ports[i]) }
		cmd := exec.CommandContext(ctx, bin, "server", "-dir="+data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
			"-master.port="+p(1), "-master.port.grpc="+p(2), "-volume.port="+p(3), "-volume.port.grpc="+p(4),
			"-filer.port="+p(5), "-filer.port.grpc="+p(6), "-s3", "-s3.port="+p(0), "-s3.port.grpc="+p(7),
			"-s3.config="+confFile, "-master.volumeSizeLimitMB=64", "-volume.max=64",
			// Nothing leaves the machine (its default reports usage statistics
			// to a web service), and no fixed port is taken: the catalog
			// servers it starts by default listen on 8181 and 9101.
			"-master.telemetry=false", "-s3.port.iceberg=0", "-s3.port.lance=0", "-s3.iam=false",
			"-filer.localSocket="+filepath.Join(dir, "filer.sock"), "-s3.localSocket="+filepath.Join(dir, "s3.sock"))
		cmd.Dir = dir
		// Its gRPC sockets go to /tmp whatever the flags say
		// (weed/command/server.go): removed once the process is gone.
		tb.Cleanup(func() {
			for i, name := range map[int]string{2: "master", 4: "volume", 6: "filer", 7: "s3"} {
				removeSocket(fmt.Sprintf("/tmp/seaweedfs-%s-grpc-%d.sock", name, ports[i]))
			}
		})
		return s, runServer(tb, s, cmd, cancel, 60*time.Second)
	})
}

// removeSocket removes path if it is a Unix socket.
func removeSocket(path string) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		_ = os.Remove(path)
	}
}

// runServer starts cmd, waits until s.Endpoint answers S3 requests, and
// stops the process when tb ends.
func runServer(tb testing.TB, s *Server, cmd *exec.Cmd, cancel context.CancelFunc, limit time.Duration) error {
	p, err := startProcess(cmd, cancel)
	if err != nil {
		return err
	}
	if err := waitS3(&http.Client{Timeout: 2 * time.Second}, s.Endpoint, p, limit); err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	tb.Cleanup(p.stop)
	return nil
}

// cephMissing names the Ceph parts this machine lacks, or "".
func cephMissing() string {
	var lack []string
	for _, b := range []string{"ceph-mon", "ceph-osd", "radosgw", "radosgw-admin", "ceph", "ceph-authtool", "monmaptool", "uuidgen", "curl"} {
		if _, err := exec.LookPath(b); err != nil {
			lack = append(lack, b)
		}
	}
	if _, err := cephScript(); err != nil {
		lack = append(lack, err.Error())
	}
	if len(lack) > 0 {
		return strings.Join(lack, ", ")
	}
	return ""
}

// cephScript finds scripts/ceph-rgw.sh from the working directory up (a
// test runs in its package's directory inside the repository).
func cephScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "scripts", "ceph-rgw.sh")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("scripts/ceph-rgw.sh (not found above the working directory)")
		}
		dir = up
	}
}

// startCephRGW makes a one-node Ceph cluster with radosgw through
// scripts/ceph-rgw.sh. Its directory is short, under the system temp
// directory: the daemons' admin sockets must fit a Unix socket path.
func startCephRGW(tb testing.TB) (*Server, error) {
	script, err := cephScript()
	if err != nil {
		return nil, err
	}
	version := ""
	if out, err := exec.Command("ceph", "--version").Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) >= 3 {
			version = f[2]
		}
	}
	return retryPorts(func() (*Server, error) {
		ports, err := freePorts(2)
		if err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp("", "objbench-ceph-")
		if err != nil {
			return nil, err
		}
		s := &Server{Name: "ceph-rgw", Endpoint: fmt.Sprintf("http://127.0.0.1:%d", ports[1]),
			AccessKey: "AK" + strings.ToUpper(randHex(8)), SecretKey: "sk" + randHex(16), Version: version}
		stop := func() {
			_ = exec.Command(script, "stop", dir).Run()
			_ = os.RemoveAll(dir)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, script, "start", dir, fmt.Sprint(ports[0]), fmt.Sprint(ports[1]), "-", "-")
		cmd.Env = append(os.Environ(), "CEPH_RGW_ACCESS_KEY="+s.AccessKey, "CEPH_RGW_SECRET_KEY="+s.SecretKey,
			fmt.Sprintf("CEPH_RGW_OWNER_PID=%d", os.Getpid())) // a killed test leaves no cluster running
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			stop()
			return nil, fmt.Errorf("scripts/ceph-rgw.sh: %v\n%s", err, out.String())
		}
		tb.Cleanup(stop)
		return s, nil
	})
}

// freePorts returns n distinct free loopback ports.
func freePorts(n int) ([]int, error) {
	seen := map[int]bool{}
	var ports []int
	for len(ports) < n {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		if !seen[p] {
			seen[p] = true
			ports = append(ports, p)
		}
	}
	return ports, nil
}
