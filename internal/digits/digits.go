// Package digits reads decimal integers from bytes without allocating,
// for the line parsers of op logs and traffic logs.
package digits

// Atoi reads a plain decimal integer of at most 18 digits, with an
// optional leading '-'; ok=false for anything else.
func Atoi(b []byte) (v int64, ok bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}
