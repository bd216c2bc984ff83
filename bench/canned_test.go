package bench_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"strconv"
	"strings"
	"time"
)

// The canned server answers S3 requests with fixed responses and does no
// work of its own, so the client's cost can be measured alone. It runs in
// a child process (this test binary, re-executed with cannedEnv set) so its
// CPU is not charged to the client.
const cannedEnv = "OBJBENCH_CANNED_SERVER"

// cannedDelayEnv, when set to a duration, holds every answer that long: a
// slow store with all workers in flight at once.
const cannedDelayEnv = "OBJBENCH_CANNED_DELAY"

const objSize = 4 << 10

var listResponse = `<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult><Name>bench</Name><KeyCount>1</KeyCount><IsTruncated>false</IsTruncated>` +
	`<Contents><Key>data/obj</Key><Size>` + strconv.Itoa(objSize) + `</Size><ETag>"x"</ETag></Contents></ListBucketResult>`

// serveCanned listens on 127.0.0.1, prints the address and serves until
// its standard input closes (the parent test ended).
func serveCanned() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(l.Addr().String())
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	for {
		c, err := l.Accept()
		if err != nil {
			os.Exit(0)
		}
		go handleCanned(c)
	}
}

func handleCanned(c net.Conn) {
	defer c.Close()
	br := bufio.NewReaderSize(c, 64<<10)
	tp := textproto.NewReader(br)
	body := bytes.Repeat([]byte{'x'}, objSize)
	getHead := []byte("HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(objSize) + "\r\nETag: \"x\"\r\n\r\n")
	okHead := []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nETag: \"x\"\r\n\r\n")
	listHead := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: " + strconv.Itoa(len(listResponse)) + "\r\n\r\n")
	out := bufio.NewWriterSize(c, 64<<10)
	delay, _ := time.ParseDuration(os.Getenv(cannedDelayEnv))
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		h, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		if n, _ := strconv.ParseInt(h.Get("Content-Length"), 10, 64); n > 0 {
			if _, err := io.CopyN(io.Discard, br, n); err != nil {
				return
			}
		}
		if delay > 0 {
			time.Sleep(delay) // the server's injected service time
		}
		switch {
		case strings.Contains(line, "list-type=2"):
			out.Write(listHead)
			out.WriteString(listResponse)
		case strings.HasPrefix(line, "GET "):
			out.Write(getHead)
			out.Write(body)
		default: // PUT, HEAD, DELETE
			out.Write(okHead)
		}
		if out.Flush() != nil {
			return
		}
	}
}
