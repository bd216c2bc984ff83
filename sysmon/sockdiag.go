package sysmon

import (
	"encoding/binary"
	"errors"
	"net"
	"syscall"
)

// Counting established connections through the kernel's socket
// diagnostics (netlink, NETLINK_INET_DIAG, as ss does) rather than by
// reading /proc/net/tcp: the kernel formats a text line per socket of the
// network namespace for that file and walks the whole established hash
// (262,144 buckets on a 24 GiB machine) for each page of it, 10-20 ms of
// system time a second even with a handful of sockets, over 100 ms with
// 20,000; with 8 workers against a local MinIO that was a third of
// objbench's CPU (bench/README.md). The dump below asks for established
// sockets to the target's port only, filtered in the kernel, in binary.

const (
	sockDiagByFamily  = 20 // SOCK_DIAG_BY_FAMILY
	tcpEstablished    = 1
	inetDiagBCDEq     = 12 // INET_DIAG_BC_D_EQ
	inetDiagBytecode  = 1  // INET_DIAG_REQ_BYTECODE
	inetDiagReqLen    = 56 // struct inet_diag_req_v2
	inetDiagMsgLen    = 72 // struct inet_diag_msg
	diagMsgDstOffset  = 24 // idiag_dst in inet_diag_msg
	diagMsgPortOffset = 6  // idiag_dport, big endian
	diagMsgInode      = 68 // idiag_inode
)

// diagCount counts the established TCP connections (IPv4 and IPv6) whose
// socket inode is in inodes and which f selects.
func diagCount(inodes map[uint64]bool, f ConnFilter) (int, error) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, syscall.NETLINK_INET_DIAG)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return 0, err
	}
	buf := make([]byte, 32<<10)
	n := 0
	for _, family := range []uint8{syscall.AF_INET, syscall.AF_INET6} {
		m, err := diagDump(fd, family, f, inodes, buf)
		if err != nil {
			return 0, err
		}
		n += m
	}
	return n, nil
}

// diagRequest is one dump request: established TCP sockets of family,
// with the destination port filter when f names a port.
func diagRequest(family uint8, f ConnFilter) []byte {
	var bc []byte
	if f.Port != 0 {
		// {D_EQ, yes: next op (8), no: past the end (12)}, {0, 0, port}:
		// the kernel's inet_diag_bc_run accepts when it ends exactly at
		// the program's end.
		bc = []byte{inetDiagBCDEq, 8, 12, 0, 0, 0, 0, 0}
		binary.NativeEndian.PutUint16(bc[6:], uint16(f.Port))
	}
	attrLen := 0
	if bc != nil {
		attrLen = syscall.SizeofRtAttr + len(bc)
	}
	total := syscall.NLMSG_HDRLEN + inetDiagReqLen + attrLen
	b := make([]byte, total)
	ne := binary.NativeEndian
	ne.PutUint32(b[0:], uint32(total))
	ne.PutUint16(b[4:], sockDiagByFamily)
	ne.PutUint16(b[6:], syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP)
	ne.PutUint32(b[8:], 1) // sequence
	r := b[syscall.NLMSG_HDRLEN:]
	r[0], r[1] = family, syscall.IPPROTO_TCP
	ne.PutUint32(r[4:], 1<<tcpEstablished)
	if bc != nil {
		a := r[inetDiagReqLen:]
		ne.PutUint16(a[0:], uint16(attrLen))
		ne.PutUint16(a[2:], inetDiagBytecode)
		copy(a[syscall.SizeofRtAttr:], bc)
	}
	return b
}

// diagDump sends one request and counts the matching answers.
func diagDump(fd int, family uint8, f ConnFilter, inodes map[uint64]bool, buf []byte) (int, error) {
	if err := syscall.Sendto(fd, diagRequest(family, f), 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return 0, err
	}
	n := 0
	for {
		m, _, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil {
			return 0, err
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:m])
		if err != nil {
			return 0, err
		}
		for _, msg := range msgs {
			switch msg.Header.Type {
			case syscall.NLMSG_DONE:
				return n, nil
			case syscall.NLMSG_ERROR:
				if len(msg.Data) >= 4 {
					if e := int32(binary.NativeEndian.Uint32(msg.Data)); e != 0 {
						return 0, syscall.Errno(-e)
					}
				}
				return 0, errors.New("sysmon: socket diagnostics failed")
			case sockDiagByFamily:
				if diagMatch(msg.Data, f, inodes) {
					n++
				}
			}
		}
	}
}

// diagMatch reads one inet_diag_msg.
func diagMatch(d []byte, f ConnFilter, inodes map[uint64]bool) bool {
	if len(d) < inetDiagMsgLen {
		return false
	}
	if !inodes[uint64(binary.NativeEndian.Uint32(d[diagMsgInode:]))] {
		return false
	}
	port := uint64(binary.BigEndian.Uint16(d[diagMsgPortOffset:]))
	var ip net.IP
	if d[0] == syscall.AF_INET {
		ip = net.IP(d[diagMsgDstOffset : diagMsgDstOffset+4])
	} else {
		ip = net.IP(d[diagMsgDstOffset : diagMsgDstOffset+16])
	}
	return f.match(ip, port)
}
