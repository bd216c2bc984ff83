//go:build linux

// Command sendpath measures what sending bytes over loopback TCP costs
// the sender, several ways, so the choice of how objbench writes large
// PUT bodies rests on numbers (docs/design/003-large-puts-sendfile.md):
//
//	write       write(2) of 8 MiB at a time from a buffer in memory (what
//	            objbench does: the payload block's WriteTo)
//	w64k        the same in 64 KiB writes
//	sendfile    sendfile(2) from a memfd holding the same bytes
//	wmemfd      write(2) of 8 MiB at a time from the memfd's shared mapping
//	            (objbench's payload block below the sendfile threshold)
//	vmsplice    vmsplice(2) of the buffer into a pipe, splice(2) to the socket
//	sndbuf512k  write, with SO_SNDBUF fixed at 512 KiB instead of autotuned
//
// The receiver is a child process reading into a 1 MiB buffer as fast as
// it can (a fast receiver: MinIO is slower). Each mode sends 4 GiB on a new
// connection; the sender's and the receiver's CPU per GiB are printed.
//
// Usage: sendpath [MODE...] (all modes when none is named).
package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/objbench/objbench/internal/cputime"
)

const (
	block = 8 << 20
	total = 4 << 30
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "receive" {
		receive()
		return
	}
	modes := os.Args[1:]
	if len(modes) == 0 {
		modes = []string{"write", "w64k", "sendfile", "wmemfd", "vmsplice", "sndbuf512k"}
	}
	cmd := exec.Command(os.Args[0], "receive")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var addr string
	_, err = fmt.Fscanln(out, &addr)
	check(err)
	data := make([]byte, block)
	for i := range data {
		data[i] = byte(i*7 + i>>13)
	}
	memfd, err := unix.MemfdCreate("sendpath", unix.MFD_CLOEXEC)
	check(err)
	_, err = unix.Pwrite(memfd, data, 0)
	check(err)
	mapped, err := unix.Mmap(memfd, 0, block, unix.PROT_READ, unix.MAP_SHARED)
	check(err)
	for _, mode := range modes {
		c, err := net.Dial("tcp", addr)
		check(err)
		tc := c.(*net.TCPConn)
		rc, err := tc.SyscallConn()
		check(err)
		if mode == "sndbuf512k" {
			check(tc.SetWriteBuffer(512 << 10))
		}
		c0, t0 := cpuTime(), time.Now()
		for sent := 0; sent < total; sent += block {
			switch mode {
			case "write", "sndbuf512k":
				_, err = c.Write(data)
			case "w64k":
				for o := 0; o < block && err == nil; o += 64 << 10 {
					_, err = c.Write(data[o : o+64<<10])
				}
			case "sendfile":
				err = sendfile(rc, memfd)
			case "wmemfd":
				_, err = c.Write(mapped)
			case "vmsplice":
				err = vmsplice(rc, data)
			default:
				fmt.Fprintln(os.Stderr, "unknown mode", mode)
				os.Exit(2)
			}
			check(err)
		}
		cpu, wall := cpuTime()-c0, time.Since(t0)
		fmt.Printf("%-10s sender %.3f CPU-s/GiB, %5.0f MiB/s", mode, cpu.Seconds()/(total>>30), float64(total>>20)/wall.Seconds())
		check(c.Close())
		var line string
		_, err = fmt.Fscanln(out, &line) // the receiver's figure for this connection
		check(err)
		fmt.Printf("; receiver %s CPU-s/GiB\n", line)
	}
}

// receive serves connections one at a time, printing the CPU each took per GiB.
func receive() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	fmt.Println(l.Addr())
	buf := make([]byte, 1<<20)
	for {
		c, err := l.Accept()
		check(err)
		c0 := cpuTime()
		var n int64
		for {
			m, err := c.Read(buf)
			n += int64(m)
			if err != nil {
				break
			}
		}
		fmt.Printf("%.3f\n", (cpuTime()-c0).Seconds()/(float64(n)/(1<<30)))
		c.Close()
	}
}

func sendfile(rc syscall.RawConn, fd int) error {
	var off int64
	return sendAll(rc, func(s int) (bool, error) {
		_, err := unix.Sendfile(s, fd, &off, block-int(off))
		return off >= block, err
	})
}

// sendAll calls send on the socket's descriptor until it says it is done,
// waiting in the netpoller whenever the socket is full (EAGAIN) and
// retrying an interrupted call.
func sendAll(rc syscall.RawConn, send func(s int) (done bool, err error)) error {
	var serr error
	err := rc.Write(func(s uintptr) bool {
		for {
			done, err := send(int(s))
			switch {
			case err == unix.EAGAIN:
				return false
			case err != nil && err != unix.EINTR:
				serr = err
				return true
			case done:
				return true
			}
		}
	})
	if serr != nil {
		return serr
	}
	return err
}

// vmsplice moves the buffer's pages into a pipe (1 MiB at a time) and
// splices them to the socket.
func vmsplice(rc syscall.RawConn, data []byte) error {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return err
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	const chunk = 1 << 20
	if _, err := unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, chunk); err != nil {
		return err
	}
	for o := 0; o < len(data); o += chunk {
		iov := []unix.Iovec{{Base: &data[o]}}
		iov[0].SetLen(chunk)
		n, err := unix.Vmsplice(p[1], iov, 0)
		if err != nil {
			return err
		}
		err = sendAll(rc, func(s int) (bool, error) {
			m, err := unix.Splice(p[0], nil, s, nil, n, unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
			if m > 0 {
				n -= int(m)
			}
			return n <= 0, err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func cpuTime() time.Duration {
	u, s := cputime.Process()
	return u + s
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
