package s3

import (
	"fmt"
	"net/http"

	"github.com/objbench/objbench/storage"
)

// setConditions puts a conditional request's headers on h; ETags are
// quoted as HTTP wants them ("*" stays as it is).
func setConditions(h http.Header, ifNoneMatch, ifMatch string) {
	if ifNoneMatch != "" {
		h["If-None-Match"] = []string{quoteETag(ifNoneMatch)}
	}
	if ifMatch != "" {
		h["If-Match"] = []string{quoteETag(ifMatch)}
	}
}

func quoteETag(e string) string {
	if e == "*" || (len(e) >= 2 && e[len(e)-1] == '"' && (e[0] == '"' || e[0] == 'W')) {
		return e
	}
	return `"` + e + `"`
}

// ignoredCondition tells a read the target answered although its
// condition does not hold by the ETag it answered with: the target does
// not implement the condition (a 200 is not the outcome asked about).
func ignoredCondition(h http.Header, ifNoneMatch, ifMatch string) error {
	if ifNoneMatch == "" && ifMatch == "" {
		return nil
	}
	got := etag(h)
	switch {
	case ifMatch != "" && ifMatch != "*" && got != unquote(ifMatch):
		return fmt.Errorf("%w: the target ignored If-Match (answered ETag %s, not %s)", storage.ErrNotImplemented, got, unquote(ifMatch))
	case ifNoneMatch != "" && (ifNoneMatch == "*" || got == unquote(ifNoneMatch)):
		return fmt.Errorf("%w: the target ignored If-None-Match (answered ETag %s)", storage.ErrNotImplemented, got)
	}
	return nil
}
