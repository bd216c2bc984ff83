package sysmon

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/procfs"
)

// A proc tree with listening sockets: 127.0.0.1:9000 held by process 42
// (objbench itself, an embedded server), [::]:9001 (every address, IPv4
// too) held by 77 (minio) besides a connection on that port, and
// 10.0.0.2:9002 held by a process this user cannot look into.
func listenerTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"net/tcp": "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
			"   0: 0100007F:2328 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3001 1 0 100 0 0 10 0\n" +
			"   1: 0200000A:232A 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3002 1 0 100 0 0 10 0\n" +
			"   2: 0100007F:2329 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 3004 1 0 20 4 30 10 -1\n",
		"net/tcp6": "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
			"   0: 00000000000000000000000000000000:2329 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 3005 1 0 100 0 0 10 0\n",
		"77/stat": "77 (minio) S 1 77 77 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 12 0 4242 1000000 100 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
		"42/stat": "42 (objbench) S 1 42 42 0 -1 4194560 100 0 0 0 10 5 0 0 20 0 12 0 4000 1000000 100 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
	}
	for name, text := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"77/fd/5": "socket:[3005]", "77/fd/6": "socket:[3004]", "42/fd/3": "socket:[3001]", "42/fd/4": "/dev/null"} {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestFindListener(t *testing.T) {
	root := listenerTree(t)
	fs, err := procfs.NewFS(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    ConnFilter
		self int
		pid  int
		why  string
	}{
		{name: "the wildcard listener of another process", f: ConnFilter{IP: net.ParseIP("127.0.0.1"), Port: 9001}, self: 42, pid: 77},
		{name: "a host name matches any address", f: ConnFilter{Port: 9001}, self: 42, pid: 77},
		{name: "an embedded server", f: ConnFilter{IP: net.ParseIP("127.0.0.1"), Port: 9000}, self: 42,
			why: "the target listens in objbench's own process"},
		{name: "a process this user cannot look into", f: ConnFilter{IP: net.ParseIP("10.0.0.2"), Port: 9002}, self: 42,
			why: "no process that this user may look into holds the socket listening on port 9002"},
		{name: "a listener on another address", f: ConnFilter{IP: net.ParseIP("127.0.0.1"), Port: 9002}, self: 42,
			why: "no socket of this machine's network namespace listens on 127.0.0.1:9002"},
		{name: "nothing listens there", f: ConnFilter{IP: net.ParseIP("127.0.0.1"), Port: 9999}, self: 42,
			why: "no socket of this machine's network namespace listens on 127.0.0.1:9999"},
	} {
		t.Run(c.name, func(t *testing.T) {
			info, why := findListener(fs, root, c.f, c.self)
			switch {
			case c.pid != 0 && (info == nil || info.PID != c.pid || info.Command != "minio"):
				t.Errorf("found %+v (%s), want pid %d (minio)", info, why, c.pid)
			case c.pid == 0 && (info != nil || why != c.why):
				t.Errorf("found %+v, %q; want none, %q", info, why, c.why)
			}
		})
	}
}
