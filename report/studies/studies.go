// Package studies prints the tables of the five studies objbench replaces,
// each in its own columns, from objbench's result files: seed 000's
// transfers watched with dstat, seed 002's storage systems, seed 003's
// s3-mailbench worker sweep and seed 004's COSBench report (seed 001's
// tool shoot-out is objbench tools' own table). Every figure is one that
// objbench's own tables and step lines state, rearranged, never
// recomputed differently: bench/studies.sh prints them, and
// e2e/studies_test.go checks them against the step lines.
//
// Like report, it reads only result files and never prints on its own.
package studies

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Table is a study's table: its columns and rows of cells.
type Table struct {
	Title   string
	Columns []string
	Rows    [][]string
	Notes   []string
}

// Write prints the table aligned, its title first and notes after.
func (t *Table) Write(w io.Writer) error {
	if t.Title != "" {
		fmt.Fprintln(w, t.Title)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.Columns, "\t"))
	for _, r := range t.Rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range t.Notes {
		fmt.Fprintln(w, n)
	}
	return nil
}

// Column is the cells of column name, row by row ("" when absent).
func (t *Table) Column(name string) []string {
	i := -1
	for j, c := range t.Columns {
		if c == name {
			i = j
		}
	}
	out := make([]string, len(t.Rows))
	for k, r := range t.Rows {
		if i >= 0 && i < len(r) {
			out[k] = r[i]
		}
	}
	return out
}
