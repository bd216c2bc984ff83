package sysmon

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// ConnFilter says which of the process's established TCP connections count
// as open connections: those to Port (any when 0) at IP (any when nil).
// Naming the target keeps an in-process server's side of the same
// connections out of the count.
type ConnFilter struct {
	IP   net.IP
	Port int
}

func (f ConnFilter) match(ip net.IP, port uint64) bool {
	return (f.Port == 0 || uint64(f.Port) == port) && (f.IP == nil || f.IP.Equal(ip))
}

func (r *reader) initProcess(fs procfs.FS) {
	self, err := fs.Self()
	if err == nil {
		_, err = self.Stat()
	}
	if err != nil {
		r.miss("process", "no counters for objbench's own process: "+err.Error())
		return
	}
	r.self = &self
	r.rt = newRuntimeReader()
	// This process's own descriptors are this machine's, not a recorded
	// tree's: asked directly only with the real /proc (ownconns.go).
	r.own = r.procRoot == "/proc"
}

func (r *reader) readProcess() *procSnap {
	p := &procSnap{}
	if st, err := r.self.Stat(); err == nil {
		p.utime, p.stime = float64(st.UTime)/userHZ, float64(st.STime)/userHZ
		p.threads, p.rss = st.NumThreads, uint64(max(st.RSS, 0))*r.pageSize
	}
	p.conns = r.openConns()
	p.rt = r.rt.read()
	return p
}

// userHZ is the kernel's clock tick for /proc times, fixed at 100 on every
// architecture Linux exports to user space.
const userHZ = 100

// openConns counts the process's established TCP connections that the
// filter selects: by asking its descriptors (ownconns.go), or in a
// recorded tree by matching its socket inodes to /proc/net/tcp{,6}.
func (r *reader) openConns() int {
	if r.own {
		fds, err := r.self.FileDescriptors()
		if err != nil {
			return 0
		}
		return ownCount(fds, r.conns)
	}
	targets, err := r.self.FileDescriptorTargets()
	if err != nil {
		return 0
	}
	inodes := map[uint64]bool{}
	for _, t := range targets {
		if n, ok := socketInode(t); ok {
			inodes[n] = true
		}
	}
	if len(inodes) == 0 {
		return 0
	}
	n := 0
	tcpSockets(r.procRoot, stEstablished, func(_, remote string, inode uint64) {
		if ip, port, ok := parseSockAddr(remote); ok && inodes[inode] && r.conns.match(ip, port) {
			n++
		}
	})
	return n
}

// The kernel's TCP states in /proc/net/tcp's st column.
const (
	stEstablished = "01"
	stListen      = "0A"
)

// tcpSockets calls fn with the local and remote address and the inode of
// every socket of /proc/net/tcp{,6} in state. It parses the files itself:
// procfs deprecated its reader in favour of netlink, which a count once a
// second does not need.
func tcpSockets(procRoot, state string, fn func(local, remote string, inode uint64)) {
	for _, file := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(filepath.Join(procRoot, "net", file))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fs := strings.Fields(line)
			if len(fs) < 10 || fs[3] != state {
				continue
			}
			if inode, err := strconv.ParseUint(fs[9], 10, 64); err == nil {
				fn(fs[1], fs[2], inode)
			}
		}
	}
}

// socketInode is the inode of a descriptor's target "socket:[12345]".
func socketInode(target string) (uint64, bool) {
	s, ok := strings.CutPrefix(target, "socket:[")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64)
	return n, err == nil
}

// parseSockAddr reads "0100007F:1F90": the address as 32-bit words in the
// kernel's byte order, the port in hex.
func parseSockAddr(s string) (net.IP, uint64, bool) {
	addr, portHex, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(portHex, 16, 16)
	raw, herr := hex.DecodeString(addr)
	if !ok || err != nil || herr != nil || len(raw)%4 != 0 {
		return nil, 0, false
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.BigEndian.PutUint32(ip[i:], binary.NativeEndian.Uint32(raw[i:]))
	}
	return ip, port, true
}

// runtimeReader reads the Go runtime's own view of the process.
type runtimeReader struct{ samples []metrics.Sample }

// runtimeSnap holds cumulative runtime counters.
type runtimeSnap struct {
	schedCounts  []uint64
	schedBuckets []float64
	gcPauseCPU   float64 // GOMAXPROCS x pause time, as the runtime counts it
	gomaxprocs   uint64
	goroutines   uint64
}

const (
	metricSched      = "/sched/latencies:seconds"
	metricGCPause    = "/cpu/classes/gc/pause:cpu-seconds"
	metricGomaxprocs = "/sched/gomaxprocs:threads"
	metricGoroutines = "/sched/goroutines:goroutines"
)

func newRuntimeReader() *runtimeReader {
	names := []string{metricSched, metricGCPause, metricGomaxprocs, metricGoroutines}
	rr := &runtimeReader{samples: make([]metrics.Sample, len(names))}
	for i, n := range names {
		rr.samples[i].Name = n
	}
	return rr
}

func (rr *runtimeReader) read() runtimeSnap {
	metrics.Read(rr.samples)
	var s runtimeSnap
	for _, m := range rr.samples {
		switch v := m.Value; {
		case m.Name == metricSched && v.Kind() == metrics.KindFloat64Histogram:
			h := v.Float64Histogram()
			s.schedCounts = append([]uint64(nil), h.Counts...) // Read reuses the histogram's memory
			s.schedBuckets = h.Buckets
		case m.Name == metricGCPause && v.Kind() == metrics.KindFloat64:
			s.gcPauseCPU = v.Float64()
		case m.Name == metricGomaxprocs && v.Kind() == metrics.KindUint64:
			s.gomaxprocs = v.Uint64()
		case m.Name == metricGoroutines && v.Kind() == metrics.KindUint64:
			s.goroutines = v.Uint64()
		}
	}
	return s
}

// quantileDelta is quantile q (0..1) of the observations made between two
// readings of a cumulative histogram: the upper bound of the bucket it
// falls in (the lower one for the open-ended last bucket), 0 without
// observations.
func quantileDelta(prev, cur []uint64, buckets []float64, q float64) float64 {
	if len(cur) == 0 || len(buckets) != len(cur)+1 {
		return 0
	}
	delta := make([]uint64, len(cur))
	var total uint64
	for i, c := range cur {
		if i < len(prev) && prev[i] <= c {
			c -= prev[i]
		}
		delta[i] = c
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for i, c := range delta {
		seen += c
		if seen >= rank {
			if hi := buckets[i+1]; !math.IsInf(hi, 1) {
				return hi
			}
			return max(buckets[i], 0)
		}
	}
	return 0
}
