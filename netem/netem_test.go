package netem_test

import (
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/netem"
)

func TestQdiscs(t *testing.T) {
	for _, c := range []struct {
		c    netem.Conditions
		want string
	}{
		{netem.Conditions{Delay: 10 * time.Millisecond, Loss: 1}, "netem delay 10ms loss 1%"},
		{netem.Conditions{Delay: 10 * time.Millisecond, Jitter: 2500 * time.Microsecond}, "netem delay 10ms 2500us"},
		{netem.Conditions{Loss: 0.5, Rate: 100e6}, "netem loss 0.5% rate 100000000bit"},
		{netem.Conditions{Rate: 2e6}, "tbf rate 2000000bit burst 32kb latency 400ms"},
	} {
		if got := strings.Join(c.c.Qdisc(), " "); got != c.want {
			t.Errorf("%+v: %q, want %q", c.c, got, c.want)
		}
	}
	for _, bad := range []netem.Conditions{{}, {Jitter: time.Millisecond}, {Loss: 101}, {Delay: -1}, {Rate: -1}} {
		if bad.Validate() == nil {
			t.Errorf("%+v passed", bad)
		}
	}
	if got := netem.Shell(netem.Apply("ns", "eth0", netem.Conditions{Delay: time.Millisecond})); got != "ip netns exec ns tc qdisc replace dev eth0 root netem delay 1ms" {
		t.Errorf("apply: %q", got)
	}
	if got := netem.Shell([]string{"echo", "a b", "it's"}); got != `echo 'a b' 'it'\''s'` {
		t.Errorf("shell quoting: %q", got)
	}
}

func TestPair(t *testing.T) {
	p, err := netem.NewPair("study", "10.99.0")
	if err != nil || p.ServerIP != "10.99.0.1" || p.ClientIP != "10.99.0.2" {
		t.Fatalf("%+v %v", p, err)
	}
	setup := p.Setup(netem.Conditions{Delay: time.Millisecond})
	if last := netem.Shell(setup[len(setup)-1]); last != "ip netns exec study-cli tc qdisc replace dev study-c root netem delay 1ms" {
		t.Errorf("the impairment is not on the client's link: %q", last)
	}
	for _, bad := range [][2]string{{"", "10.99.0"}, {"a-name-far-too-long", "10.99.0"}, {"x", "10.99"}, {"x", "10.300.0"}, {"a b", "10.99.0"}} {
		if _, err := netem.NewPair(bad[0], bad[1]); err == nil {
			t.Errorf("NewPair(%q, %q) passed", bad[0], bad[1])
		}
	}
}
