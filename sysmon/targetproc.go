package sysmon

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/prometheus/procfs"

	"github.com/objbench/objbench/result"
)

// A target on this machine that is a process of its own (a local MinIO,
// `objbench server`) competes with objbench for the same CPUs; the
// verdict can only say who used them if it measures that process too. It
// is found once, when sampling starts, as the process that owns the
// socket listening on the target's port: the listening sockets of
// /proc/net/tcp{,6} give their inodes, and the descriptors of
// /proc/PID/fd say which process holds one. Reading those two files costs
// tens of milliseconds of system time on a busy machine (ownconns_linux.go),
// which is why it is done once and not every second.

// ProcessInfo and ProcessCPU are the result file's records of the
// target's process.
type (
	ProcessInfo = result.ProcessInfo
	ProcessCPU  = result.ProcessCPU
)

// listeningInodes are the inodes of the sockets in LISTEN state on f's
// port whose local address can receive connections to f.IP: that address
// itself, the wildcard, or any loopback address for a loopback f.IP. A nil
// f.IP (a host name) accepts every address.
func listeningInodes(procRoot string, f ConnFilter) map[uint64]string {
	out := map[uint64]string{}
	tcpSockets(procRoot, stListen, func(local, _ string, inode uint64) {
		if ip, port, ok := parseSockAddr(local); ok && inode != 0 && port == uint64(f.Port) && accepts(ip, f.IP) {
			out[inode] = net.JoinHostPort(ip.String(), strconv.FormatUint(port, 10))
		}
	})
	return out
}

// accepts is whether a socket bound to local receives connections to dst.
func accepts(local, dst net.IP) bool {
	switch {
	case dst == nil || local.IsUnspecified() || local.Equal(dst):
		return true
	case local.To4() != nil && local.To4().Equal(net.IPv4zero): // ::ffff:0.0.0.0
		return true
	}
	return dst.IsLoopback() && local.IsLoopback()
}

// findListener finds the process, other than self, holding one of the
// listening sockets on f's port. It returns nil when none is found (the
// target listens in this process, or in a process this user may not
// look into) with the reason.
func findListener(fs procfs.FS, procRoot string, f ConnFilter, self int) (*ProcessInfo, string) {
	if f.Port == 0 {
		return nil, "the target's port is not known"
	}
	inodes := listeningInodes(procRoot, f)
	if len(inodes) == 0 {
		where := fmt.Sprintf("port %d", f.Port)
		if f.IP != nil {
			where = net.JoinHostPort(f.IP.String(), strconv.Itoa(f.Port))
		}
		return nil, "no socket of this machine's network namespace listens on " + where
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return nil, "cannot list processes: " + err.Error()
	}
	denied := 0
	for _, p := range procs {
		targets, err := p.FileDescriptorTargets()
		if err != nil {
			denied++
			continue
		}
		for _, t := range targets {
			n, ok := socketInode(t)
			addr, listens := inodes[n]
			if !ok || !listens {
				continue
			}
			if p.PID == self {
				return nil, "the target listens in objbench's own process"
			}
			info := &ProcessInfo{PID: p.PID, Listen: addr}
			if st, err := p.Stat(); err == nil {
				info.Command = st.Comm
			}
			return info, ""
		}
	}
	why := fmt.Sprintf("no process that this user may look into holds the socket listening on port %d", f.Port)
	if denied > 0 {
		why += fmt.Sprintf(" (%d processes could not be looked into: another user's, or a container's)", denied)
	}
	return nil, why
}

// targetSnap is the target process's cumulative CPU times, in seconds.
type targetSnap struct{ utime, stime float64 }

func (r *reader) initTarget(fs procfs.FS, f ConnFilter) {
	self := os.Getpid()
	if r.self != nil {
		self = r.self.PID
	}
	info, why := findListener(fs, r.procRoot, f, self)
	if info == nil {
		r.notes = append(r.notes, "the target's process is not measured: "+why+"; its CPU counts as other processes'")
		return
	}
	p, err := fs.Proc(info.PID)
	var st procfs.ProcStat
	if err == nil {
		st, err = p.Stat()
	}
	if err != nil {
		r.notes = append(r.notes, fmt.Sprintf("the target's process %s (pid %d) is not measured: %v", info.Command, info.PID, err))
		return
	}
	r.target, r.targetInfo, r.targetStart = &p, info, st.Starttime
}

// readTarget reads the target's CPU times; nil once it has exited (a pid
// reused by another process is not it: its start time differs).
func (r *reader) readTarget() *targetSnap {
	st, err := r.target.Stat()
	if err != nil || st.Starttime != r.targetStart {
		return nil
	}
	return &targetSnap{utime: float64(st.UTime) / userHZ, stime: float64(st.STime) / userHZ}
}

func targetDelta(a, b *targetSnap, dur float64) *ProcessCPU {
	return &ProcessCPU{User: max(b.utime-a.utime, 0) / dur, Sys: max(b.stime-a.stime, 0) / dur}
}
