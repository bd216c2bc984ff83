package shootout

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Job is one run of one tool: upload every file of Src to Dst with Threads
// requests in flight.
type Job struct {
	Src      string // local directory holding the files, no trailing slash
	Bucket   string
	Prefix   string // ends with "/"; fresh for every run
	Threads  int
	Files    int    // how many files Src holds
	Dir      string // private scratch directory for config files, removed after the run
	Target   Target
	Objbench string // path of the objbench binary
	Script   string // path of the boto3 upload script
	JSScript string // path of the JavaScript SDK's upload script
	Checksum string // objbench's --checksum ("": none)
}

// Dst is the destination URL, s3://BUCKET/PREFIX/.
func (j Job) Dst() string { return "s3://" + j.Bucket + "/" + j.Prefix }

// Command is how to start a tool for a Job: argv, and the environment
// variables it needs on top of the cleaned base environment.
type Command struct {
	Args  []string
	Env   []string // KEY=VALUE, secrets included: never shown
	Unset []string // variables of the base environment to remove
}

// Profile is how to run one tool.
type Profile struct {
	Name    string
	Binary  string   // program looked up on PATH (argv[0])
	Install string   // how to install it, for the line that says it was skipped
	Version []string // command that prints the version (first line kept); nil: none
	// Threads, when > 0, is the only thread count the tool runs at: it has
	// no parallelism knob.
	Threads int
	Note    string // said under the table
	// Template is the command template of a custom profile ("" for the
	// built-in ones).
	Template string
	build    func(j Job) (Command, error)
	path     string // Binary as found on PATH (set when the harness probes it)
}

// Command builds the command for j.
func (p *Profile) Command(j Job) (Command, error) { return p.build(j) }

// Placeholders of a command template.
const placeholders = "{src} {dst} {endpoint} {threads}"

var toolName = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,31}$`)

// ParseTemplate reads a custom profile, NAME=COMMAND TEMPLATE, e.g.
// "mytool=mytool cp {src} {dst} -j {threads}". The template is split on
// spaces (no shell) and each word's placeholders are filled in: {src} the
// local directory, {dst} s3://BUCKET/PREFIX/, {endpoint} the endpoint URL,
// {threads} the thread count. Credentials go in the environment, as the
// aws CLI reads them (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL).
func ParseTemplate(spec string) (*Profile, error) {
	name, tmpl, ok := strings.Cut(spec, "=")
	name, tmpl = strings.TrimSpace(name), strings.TrimSpace(tmpl)
	if !ok || tmpl == "" {
		return nil, fmt.Errorf("bad tool %q: want NAME=COMMAND TEMPLATE, e.g. 'mytool=mytool cp {src} {dst} -j {threads}'", spec)
	}
	if !toolName.MatchString(name) {
		return nil, fmt.Errorf("bad tool name %q: use lower-case letters, digits, '-', '_' or '.'", name)
	}
	words := strings.Fields(tmpl)
	if !strings.Contains(tmpl, "{src}") || !strings.Contains(tmpl, "{dst}") {
		return nil, fmt.Errorf("bad tool %q: the template must contain {src} and {dst} (placeholders: %s)", name, placeholders)
	}
	if bad := regexp.MustCompile(`\{[a-z_]*\}`).FindAllString(tmpl, -1); len(bad) > 0 {
		for _, b := range bad {
			if !strings.Contains(placeholders, b) {
				return nil, fmt.Errorf("bad tool %q: unknown placeholder %s (known: %s)", name, b, placeholders)
			}
		}
	}
	return &Profile{Name: name, Binary: words[0], Template: tmpl,
		Install: "put " + words[0] + " on PATH", build: func(j Job) (Command, error) {
			r := strings.NewReplacer("{src}", j.Src, "{dst}", j.Dst(), "{endpoint}", j.Target.Endpoint,
				"{threads}", strconv.Itoa(j.Threads))
			args := make([]string, len(words))
			for i, w := range words {
				args[i] = r.Replace(w)
			}
			env := awsEnv(j.Target)
			if j.Target.Endpoint != "" {
				env = append(env, "AWS_ENDPOINT_URL="+j.Target.Endpoint)
			}
			return Command{Args: args, Env: env}, nil
		}}, nil
}

// awsEnv is the credentials and region in the variables every AWS SDK reads.
func awsEnv(t Target) []string {
	env := []string{"AWS_ACCESS_KEY_ID=" + t.AccessKey, "AWS_SECRET_ACCESS_KEY=" + t.SecretKey,
		"AWS_REGION=" + t.region(), "AWS_DEFAULT_REGION=" + t.region()}
	if t.SessionToken != "" {
		env = append(env, "AWS_SESSION_TOKEN="+t.SessionToken)
	}
	return env
}

// plainHTTP says whether the endpoint is http:// (not https).
func plainHTTP(endpoint string) bool {
	u, err := url.Parse(endpoint)
	return err == nil && u.Scheme == "http"
}
