package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/netem"
)

type netemOptions struct {
	delay, jitter time.Duration
	loss          string
	rate          string
	dev           string
	netns         string
	subnet        string
}

func newNetemCommand(env Env) *cobra.Command {
	o := &netemOptions{}
	cmd := &cobra.Command{
		Use:   "netem",
		Short: "Print the commands that give the client's network a delay, loss or rate (tc netem), to repeat a study under known network conditions",
		Long: `Prints, and never runs, the Linux traffic-control commands that make a
link delay, lose or cap the packets it sends, so a study can be repeated at,
say, 10 ms and 1% loss. Run them as root; nothing here changes a network.

Two recipes:

  --dev IF      the client machine's own interface: every packet it sends
                through IF gets the conditions (a round trip gets the delay
                once), for a store on another machine. The whole machine's
                traffic on IF is affected until the remove command runs.
  --netns NAME  two network namespaces on this machine joined by a veth
                pair (NAME-srv holds the store, NAME-cli runs objbench), for a
                store on this machine: nothing outside the namespaces changes.

The conditions show in objbench's own figures: a delay adds to each
request's connect (a new connection's handshake) and wait (to the first
response byte) phases and to its latency; loss shows as retransmissions
in the tail. Delay and loss need the kernel's netem qdisc (sch_netem); a
--rate alone uses a token bucket (tbf), which minimal kernels have.`,
		Example: `  objbench netem --delay 10ms --loss 1% --dev eth0
  objbench netem --delay 10ms --jitter 2ms --netns study
  objbench netem --rate 100Mbit --netns study`,
		Args: noArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error { return runNetem(env.Stdout, o) },
	}
	f := cmd.Flags()
	f.DurationVar(&o.delay, "delay", 0, "added to every packet the client sends (10ms)")
	f.DurationVar(&o.jitter, "jitter", 0, "the delay varies by up to this much (needs --delay)")
	f.StringVar(&o.loss, "loss", "", "share of packets dropped, in percent (1%)")
	f.StringVar(&o.rate, "rate", "", "cap on the link in bits per second (100Mbit, 1G)")
	f.StringVar(&o.dev, "dev", "", "the client's interface to impair (the machine's own network)")
	f.StringVar(&o.netns, "netns", "", "a namespace pair of this name: store and client on this machine, the link between them impaired")
	f.StringVar(&o.subnet, "subnet", "10.99.0", "--netns: the /24 of the pair (store .1, client .2)")
	return cmd
}

func runNetem(w io.Writer, o *netemOptions) error {
	c := netem.Conditions{Delay: o.delay, Jitter: o.jitter}
	if o.loss != "" {
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(o.loss), "%"), 64)
		if err != nil {
			return usagef("--loss %q: want a percentage, like 1%%", o.loss)
		}
		c.Loss = v
	}
	if o.rate != "" {
		bps, err := parseLinkSpeed(o.rate)
		if err != nil {
			return usagef("--rate %q: want bits per second, like 100Mbit or 1G", o.rate)
		}
		c.Rate = int64(bps)
	}
	if err := c.Validate(); err != nil {
		return usagef("%v", err)
	}
	switch {
	case (o.dev == "") == (o.netns == ""):
		return usagef("give --dev IF (the client's interface) or --netns NAME (a namespace pair on this machine)")
	case o.dev != "":
		writeDevRecipe(w, o.dev, c)
		return nil
	}
	p, err := netem.NewPair(o.netns, o.subnet)
	if err != nil {
		return usagef("--netns: %v", err)
	}
	writePairRecipe(w, p, c)
	return nil
}

func describe(c netem.Conditions) string {
	var parts []string
	if c.Delay > 0 {
		d := c.Delay.String()
		if c.Jitter > 0 {
			d += " ± " + c.Jitter.String()
		}
		parts = append(parts, d+" delay")
	}
	if c.Loss > 0 {
		parts = append(parts, strconv.FormatFloat(c.Loss, 'f', -1, 64)+"% loss")
	}
	if c.Rate > 0 {
		parts = append(parts, "a cap of "+strconv.FormatInt(c.Rate, 10)+" bit/s")
	}
	return strings.Join(parts, ", ")
}

func writeDevRecipe(w io.Writer, dev string, c netem.Conditions) {
	fmt.Fprintf(w, "# objbench changes no network: run these as root.\n")
	fmt.Fprintf(w, "# Every packet this machine sends through %s gets %s:\n", dev, describe(c))
	fmt.Fprintln(w, netem.Shell(netem.Apply("", dev, c)))
	fmt.Fprintf(w, "# ... run objbench as usual (its phases show the delay in connect and wait) ...\n")
	fmt.Fprintf(w, "# Then take it off again:\n")
	fmt.Fprintln(w, netem.Shell(netem.Remove("", dev)))
}

func writePairRecipe(w io.Writer, p netem.Pair, c netem.Conditions) {
	fmt.Fprintf(w, "# objbench changes no network: run these as root. Namespaces %s (the store, %s) and %s\n", p.Server(), p.ServerIP, p.Client())
	fmt.Fprintf(w, "# (objbench, %s), joined by a veth pair; what %s sends gets %s.\n", p.ClientIP, p.Client(), describe(c))
	for _, cmd := range p.Setup(c) {
		fmt.Fprintln(w, netem.Shell(cmd))
	}
	ep := "http://" + p.ServerIP + ":9000"
	fmt.Fprintf(w, "# The store in its namespace (objbench's own server here; MinIO the same way), then the study in the client's:\n")
	fmt.Fprintln(w, netem.Shell(netem.In(p.Server(), "objbench", "server", "--listen", p.ServerIP+":9000", "--bucket", "bench"))+" &")
	fmt.Fprintln(w, netem.Shell(netem.In(p.Client(), "objbench", "get", "--endpoint-url", ep, "--bucket", "bench", "-c", "1,4,16", "--duration", "30s")))
	fmt.Fprintf(w, "# (give the client the credentials the server printed: AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=...)\n")
	fmt.Fprintf(w, "# Then remove both namespaces (their link goes with them; stop the server first):\n")
	for _, cmd := range p.Teardown() {
		fmt.Fprintln(w, netem.Shell(cmd))
	}
}
