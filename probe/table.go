package probe

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes r as a table: what was probed, one line per feature,
// then what it cost and whether anything was left.
func WriteTable(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "probe of %s, bucket %s", r.Endpoint, r.Bucket)
	if r.BucketCreated {
		fmt.Fprint(w, " (created by the probe, then removed)")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FEATURE\tSUPPORTED\tDETAIL")
	for _, f := range r.Findings {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Feature, f.Status, f.Detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var no, differs []string
	for _, f := range r.Findings {
		switch f.Status {
		case No:
			no = append(no, f.Feature)
		case Differs:
			differs = append(differs, f.Feature)
		}
	}
	fmt.Fprintf(w, "%d features: %d missing, %d behave differently from S3; %d requests in %.1f s\n",
		len(r.Findings), len(no), len(differs), r.Requests, r.Seconds)
	switch {
	case len(r.Left) > 0:
		_, err := fmt.Fprintf(w, "LEFT IN THE STORE: %d of the probe's objects could not be removed: %s\n", len(r.Left), strings.Join(r.Left, ", "))
		return err
	case r.CleanupError != "":
		_, err := fmt.Fprintf(w, "CLEANUP FAILED: %s\n", r.CleanupError)
		return err
	}
	_, err := fmt.Fprintln(w, "cleaned up: every object the probe wrote is removed")
	return err
}
