// Command studytables prints one seed study's table from objbench result
// files, in the study's own columns (package report/studies):
//
//	studytables 000|002|003|004 RESULT.json...
//
// bench/studies.sh runs it after each study.
package main

import (
	"fmt"
	"os"

	"github.com/objbench/objbench/report/studies"
	"github.com/objbench/objbench/result"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: studytables 000|002|003|004 RESULT.json...")
		os.Exit(2)
	}
	var runs []*result.Run
	for _, p := range os.Args[2:] {
		r, err := result.Read(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "studytables:", err)
			os.Exit(2)
		}
		runs = append(runs, r)
	}
	var t studies.Table
	var err error
	switch os.Args[1] {
	case "000":
		t, err = studies.Transfers(runs)
	case "002":
		t, err = studies.StorageSystems(runs)
	case "003":
		t, err = studies.Mailbench(runs)
	case "004":
		t, err = studies.COSBench(runs[0])
	default:
		err = fmt.Errorf("no study %q: want 000, 002, 003 or 004 (001 is objbench tools' own table)", os.Args[1])
	}
	if err == nil {
		err = t.Write(os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "studytables:", err)
		os.Exit(1)
	}
}
