package sysmon

import "syscall"

// kernelAndMemory is the kernel's release and the machine's memory.
func kernelAndMemory() (string, uint64) {
	var kernel string
	var mem uint64
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		kernel = utsString(u.Release[:])
	}
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		mem = uint64(si.Totalram) * uint64(si.Unit)
	}
	return kernel, mem
}

func utsString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}
