package cosbenchcsv

import "testing"

func TestFormatsAsCOSBench(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{num(1.0), "1"}, {num(2766.666), "2766.67"}, {num(0.125), "0.12"}, {num(0.135), "0.14"}, {num(0), "0"},
		{ratio(1), "100%"}, {ratio(0.98765), "98.77%"}, {orNA(0, num), "N/A"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if n := nextID([]byte("Id,Name\nw3,a,x\nw12,b,y\nbad,c\n")); n != 13 {
		t.Errorf("next id %d, want 13", n)
	}
	for kind, want := range map[string][2]string{"main": {"read", "read"}, "prepare": {"prepare-write", "prepare"}, "cleanup": {"cleanup-delete", "cleanup"}} {
		op := map[string]string{"main": "GET", "prepare": "PUT", "cleanup": "DELETE"}[kind]
		if n, typ := opName(kind, op); n != want[0] || typ != want[1] {
			t.Errorf("%s %s: %s, %s", kind, op, n, typ)
		}
	}
}
