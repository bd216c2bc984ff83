package sysmon

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// ReadMachine collects what it can; missing facts stay empty.
func ReadMachine() Machine {
	m := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	m.Hostname, _ = os.Hostname()
	m.Kernel, m.MemoryBytes = kernelAndMemory()
	m.CPUModel = cpuModel("/proc/cpuinfo")
	m.Links = linkSpeeds("/sys")
	return m
}

// linkSpeeds reads /sys/class/net/*/speed (Mb/s; -1 or unreadable when
// unknown).
func linkSpeeds(sysRoot string) map[string]float64 {
	dir := filepath.Join(sysRoot, "class", "net")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out map[string]float64
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "speed"))
		if err != nil {
			continue
		}
		mbps, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err != nil || mbps <= 0 {
			continue
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[e.Name()] = mbps * 1e6
	}
	return out
}

func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
