//go:build linux

package kubernetes_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launcher starts one pod of the Job on this machine: as a container
// (podman), or, where no container tool can run, as the binary under the
// Job's user in an empty read-only directory.
type launcher interface {
	what() string
	command(ctx context.Context, t *testing.T, p pod, hostDirs map[string]string) *exec.Cmd
}

// podman runs the image with podman and Debian's runc, as the kubelet
// would: the Job's user, a read-only root file system with no tmpfs of
// podman's own (Kubernetes mounts none), no capabilities, no privilege
// escalation, the Job's volumes, and the host's network (the server
// listens on 127.0.0.1).
type podman struct {
	bin, image string
	global     []string // --root, --runroot, --runtime ...
	conf       string   // a containers.conf without podman's default ulimits
	dir        string
}

func (p *podman) what() string {
	return "containers (podman, runc) of the image built from deploy/Dockerfile"
}

func (p *podman) cmd(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, p.bin, append(append([]string(nil), p.global...), args...)...)
	c.Env = append(os.Environ(), "CONTAINERS_CONF="+p.conf)
	return c
}

func (p *podman) command(ctx context.Context, t *testing.T, pd pod, hostDirs map[string]string) *exec.Cmd {
	// The environment through a file, not podman's argv: it holds the keys.
	envFile := filepath.Join(p.dir, fmt.Sprintf("env-%d", time.Now().UnixNano()))
	if err := os.WriteFile(envFile, []byte(strings.Join(pd.env, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--rm", "--network", "host", "--user", pd.user, "--env-file", envFile}
	if pd.readOnly {
		args = append(args, "--read-only", "--read-only-tmpfs=false")
	}
	if pd.dropAll {
		args = append(args, "--cap-drop", "all")
	}
	if pd.noPriv {
		args = append(args, "--security-opt", "no-new-privileges")
	}
	for _, m := range pd.mounts {
		v := hostDirs[m.Name] + ":" + m.MountPath
		if m.ReadOnly {
			v += ":ro"
		}
		args = append(args, "--volume", v)
	}
	args = append(append(args, p.image), pd.args...)
	t.Logf("podman %s", strings.Join(args, " "))
	return p.cmd(ctx, args...)
}

// startPodman builds the image's prebuilt target from dist (the binary
// and the CA bundle), or says why podman cannot run here.
func startPodman(t *testing.T, work, dist string) (*podman, error) {
	bin, err := exec.LookPath("podman")
	if err != nil {
		return nil, errors.New("podman is not installed (scripts/install-podman.sh installs it)")
	}
	if _, err := exec.LookPath("runc"); err != nil {
		return nil, errors.New("runc is not installed (scripts/install-podman.sh installs it)")
	}
	p := &podman{bin: bin, image: "localhost/objbench-container-test:latest", conf: filepath.Join(work, "containers.conf"), dir: work}
	// Storage of its own (vfs: no mounts left behind), runc rather than
	// crun, cgroups without systemd, and no default ulimits: crun and
	// podman's default setrlimit fail on this machine's hybrid cgroups.
	p.global = []string{"--root", filepath.Join(work, "storage"), "--runroot", filepath.Join(work, "run"), "--storage-driver", "vfs",
		"--runtime", "runc", "--cgroup-manager", "cgroupfs", "--events-backend", "file"}
	if err := os.WriteFile(p.conf, []byte("[containers]\ndefault_ulimits = []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := p.cmd(ctx, "info").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("podman info: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = p.cmd(context.Background(), "rmi", "--all", "--force").Run() })
	out, err := p.cmd(ctx, "build", "--pull=never", "--target", "prebuilt", "-f", "../Dockerfile", "-t", p.image, dist).CombinedOutput()
	if err != nil {
		t.Fatalf("podman build --target prebuilt: %v\n%s", err, out)
	}
	return p, nil
}

// bareUser runs the binary itself under the Job's user, in an empty
// directory that user may not write, with the Job's environment: the
// same check where containers cannot run.
type bareUser struct {
	bin, dir string
}

func (b *bareUser) what() string {
	if os.Geteuid() != 0 {
		return "the binary as this user (not root: it cannot take the Job's user) in an empty read-only directory"
	}
	return "the binary under the Job's user in an empty read-only directory (no container tool can run here)"
}

func (b *bareUser) command(ctx context.Context, t *testing.T, pd pod, hostDirs map[string]string) *exec.Cmd {
	args := make([]string, len(pd.args))
	for i, a := range pd.args { // a file on a volume: the volume's directory here
		args[i] = a
		for _, m := range pd.mounts {
			if rest, ok := strings.CutPrefix(a, m.MountPath+"/"); ok {
				args[i] = filepath.Join(hostDirs[m.Name], rest)
			}
		}
	}
	c := exec.CommandContext(ctx, b.bin, args...)
	c.Dir = b.dir
	c.Env = append([]string{"HOME=" + b.dir}, pd.env...)
	if os.Geteuid() == 0 {
		var uid, gid uint32
		if _, err := fmt.Sscanf(pd.user, "%d:%d", &uid, &gid); err != nil {
			t.Fatalf("user %q: %v", pd.user, err)
		}
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	}
	t.Logf("as %s in %s: %s %s", pd.user, b.dir, b.bin, strings.Join(args, " "))
	return c
}
