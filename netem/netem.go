// Package netem writes the commands that give a client's network known
// conditions (delay, jitter, loss, a rate) with Linux traffic control, on
// an interface or in a pair of network namespaces, so a study can be
// repeated at, say, 10 ms and 1% loss. It runs nothing: changing a
// machine's network is for its administrator (objbench netem prints the
// commands; the tests run them in namespaces they make).
package netem

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Conditions are what a link does to the packets it sends.
type Conditions struct {
	Delay, Jitter time.Duration
	Loss          float64 // percent of packets dropped, 0..100
	// Rate caps the link in bits per second (0: no cap).
	Rate int64
}

// Validate says what is wrong with c, if anything.
func (c Conditions) Validate() error {
	var errs []error
	if c.Delay < 0 || c.Jitter < 0 {
		errs = append(errs, errors.New("delay and jitter must not be negative"))
	}
	if c.Jitter > 0 && c.Delay == 0 {
		errs = append(errs, errors.New("jitter needs a delay"))
	}
	if c.Loss < 0 || c.Loss > 100 {
		errs = append(errs, fmt.Errorf("loss %v%%: want 0 to 100", c.Loss))
	}
	if c.Rate < 0 {
		errs = append(errs, errors.New("rate must not be negative"))
	}
	if c == (Conditions{}) {
		errs = append(errs, errors.New("no condition: give a delay, a loss or a rate"))
	}
	return errors.Join(errs...)
}

// NeedsNetem says whether c needs the kernel's netem qdisc (sch_netem):
// a delay or loss does; a rate alone is a token bucket (tbf), which
// minimal kernels have.
func (c Conditions) NeedsNetem() bool { return c.Delay > 0 || c.Loss > 0 }

// Qdisc is the tc qdisc that gives c: "netem delay 10ms 2ms loss 1%" or,
// for a rate alone, "tbf rate 8000000bit burst 32kb latency 400ms".
func (c Conditions) Qdisc() []string {
	if !c.NeedsNetem() {
		return []string{"tbf", "rate", strconv.FormatInt(c.Rate, 10) + "bit", "burst", "32kb", "latency", "400ms"}
	}
	q := []string{"netem"}
	if c.Delay > 0 {
		q = append(q, "delay", tcTime(c.Delay))
		if c.Jitter > 0 {
			q = append(q, tcTime(c.Jitter))
		}
	}
	if c.Loss > 0 {
		q = append(q, "loss", strconv.FormatFloat(c.Loss, 'f', -1, 64)+"%")
	}
	if c.Rate > 0 {
		q = append(q, "rate", strconv.FormatInt(c.Rate, 10)+"bit")
	}
	return q
}

// tcTime writes d as tc reads it: whole microseconds ("10ms", "250us").
func tcTime(d time.Duration) string {
	if d%time.Millisecond == 0 {
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
	}
	return strconv.FormatInt(int64(d/time.Microsecond), 10) + "us"
}

// Apply is the command that gives dev's outgoing packets c (in namespace
// ns, when not ""); Remove undoes it.
func Apply(ns, dev string, c Conditions) []string {
	return inNS(ns, append([]string{"tc", "qdisc", "replace", "dev", dev, "root"}, c.Qdisc()...))
}

// Remove is the command that takes the conditions off dev again.
func Remove(ns, dev string) []string {
	return inNS(ns, []string{"tc", "qdisc", "del", "dev", dev, "root"})
}

func inNS(ns string, cmd []string) []string {
	if ns == "" {
		return cmd
	}
	return append([]string{"ip", "netns", "exec", ns}, cmd...)
}

// Pair is two network namespaces on this machine joined by a veth pair:
// a store runs in Server, objbench in Client, whose link to it has the
// conditions. Nothing of it touches the machine's own namespace.
type Pair struct {
	Name               string // names the namespaces NAME-srv, NAME-cli and the links NAME-s, NAME-c
	ServerIP, ClientIP string // on a /24, e.g. 10.99.0.1 and 10.99.0.2
}

// NewPair is the pair called name on subnet (three octets, "10.99.0").
func NewPair(name, subnet string) (Pair, error) {
	if name == "" || len(name)+2 > 15 || strings.ContainsAny(name, " /\t") {
		return Pair{}, fmt.Errorf("namespace name %q: want 1 to 13 characters without spaces or slashes (Linux names links up to 15)", name)
	}
	parts := strings.Split(subnet, ".")
	if len(parts) != 3 {
		return Pair{}, fmt.Errorf("subnet %q: want three octets, like 10.99.0", subnet)
	}
	for _, p := range parts {
		if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 255 {
			return Pair{}, fmt.Errorf("subnet %q: %q is no octet", subnet, p)
		}
	}
	return Pair{Name: name, ServerIP: subnet + ".1", ClientIP: subnet + ".2"}, nil
}

// Server and Client are the namespaces' names; ServerLink and ClientLink
// their ends of the veth pair.
func (p Pair) Server() string     { return p.Name + "-srv" }
func (p Pair) Client() string     { return p.Name + "-cli" }
func (p Pair) ServerLink() string { return p.Name + "-s" }
func (p Pair) ClientLink() string { return p.Name + "-c" }

// Setup is the commands that make the pair and give the client's
// outgoing packets c (each round trip then takes the delay once).
func (p Pair) Setup(c Conditions) [][]string {
	return [][]string{
		{"ip", "netns", "add", p.Server()},
		{"ip", "netns", "add", p.Client()},
		{"ip", "link", "add", p.ClientLink(), "netns", p.Client(), "type", "veth", "peer", "name", p.ServerLink(), "netns", p.Server()},
		{"ip", "-n", p.Server(), "addr", "add", p.ServerIP + "/24", "dev", p.ServerLink()},
		{"ip", "-n", p.Client(), "addr", "add", p.ClientIP + "/24", "dev", p.ClientLink()},
		{"ip", "-n", p.Server(), "link", "set", p.ServerLink(), "up"},
		{"ip", "-n", p.Client(), "link", "set", p.ClientLink(), "up"},
		{"ip", "-n", p.Server(), "link", "set", "lo", "up"},
		{"ip", "-n", p.Client(), "link", "set", "lo", "up"},
		Apply(p.Client(), p.ClientLink(), c),
	}
}

// Teardown is the commands that remove the pair (its links go with it).
func (p Pair) Teardown() [][]string {
	return [][]string{{"ip", "netns", "del", p.Client()}, {"ip", "netns", "del", p.Server()}}
}

// In is cmd run in namespace ns.
func In(ns string, cmd ...string) []string { return inNS(ns, cmd) }

// Shell joins a command for a shell, quoting what needs it.
func Shell(cmd []string) string {
	out := make([]string, len(cmd))
	for i, a := range cmd {
		if a == "" || strings.ContainsAny(a, " \t'\"$&;|<>*?()[]{}\\`!#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
