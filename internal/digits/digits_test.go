package digits

import "testing"

func TestAtoi(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"42", 42, true}, {"-7", -7, true}, {"999999999999999999", 999999999999999999, true},
		{"", 0, false}, {"-", 0, false}, {"1e3", 0, false}, {"+1", 0, false}, {"1000000000000000000", 0, false}, {" 1", 0, false},
	} {
		if v, ok := Atoi([]byte(c.in)); v != c.want || ok != c.ok {
			t.Errorf("Atoi(%q) = %d, %v; want %d, %v", c.in, v, ok, c.want, c.ok)
		}
	}
}
