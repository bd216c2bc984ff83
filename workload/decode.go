package workload

import (
	"bytes"
	"errors"
)

// Decode reads a workload file of either format (COSBench XML when it
// starts with '<', YAML otherwise), validates it, and returns it with what
// it asks for that objbench does not do (also kept in Spec.Source). The
// error lists every problem found, decoding and validation alike, each as
// file:line: message.
func Decode(file string, data []byte) (Spec, []Warning, error) {
	return DecodeWith(file, data, DecodeOptions{})
}

// DecodeOptions say what of the command line a decoder must know.
type DecodeOptions struct {
	// Target is true when the command line names the store to run on:
	// a COSBench workload for another storage type (swift, mock...) then
	// runs there, containers as buckets, instead of being refused.
	Target bool
	// Dataset names the data set the run writes into and reads from
	// (Spec.Dataset): reads of objects the file never writes are then
	// valid.
	Dataset string
	// BareKeys is COSBench's key layout (Spec.BareKeys): reads of
	// objects the file never writes are then valid too (what is there).
	BareKeys bool
}

// DecodeWith is Decode with options.
func DecodeWith(file string, data []byte, o DecodeOptions) (Spec, []Warning, error) {
	var sp Spec
	var warns []Warning
	var err error
	if IsCOSBench(data) {
		sp, warns, err = decodeCOSBench(file, data, o)
	} else {
		sp, warns, err = DecodeYAML(file, data)
	}
	if sp.Source == nil { // the file could not be read as a document at all
		return sp, warns, err
	}
	sp.Dataset, sp.BareKeys = o.Dataset, o.BareKeys
	for _, w := range warns {
		sp.Source.Warnings = append(sp.Source.Warnings, w.String())
	}
	errs := []error{err}
	seen := map[string]bool{}
	if err != nil {
		seen[err.Error()] = true
	}
	verrs, vwarns := sp.Check()
	for _, w := range vwarns {
		warns = append(warns, w)
		sp.Source.Warnings = append(sp.Source.Warnings, w.String())
	}
	for _, v := range verrs {
		if !seen[v.Error()] {
			seen[v.Error()] = true
			errs = append(errs, v)
		}
	}
	return sp, warns, errors.Join(errs...)
}

// IsCOSBench reports whether data looks like XML (a COSBench workload).
func IsCOSBench(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return bytes.HasPrefix(t, []byte("<"))
}
