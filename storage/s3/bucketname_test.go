package s3_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/storage/s3"
)

func TestCheckBucketNameNamesTheRule(t *testing.T) {
	for _, c := range []struct{ name, rule string }{
		{"bench", ""}, {"my.bucket-01", ""}, {"a1b", ""},
		{"b", "3 to 63 characters"}, {strings.Repeat("a", 64), "3 to 63 characters"},
		{"Bench", "lowercase letters"}, {"my_bucket", "lowercase letters"}, {"mycontainers_1", "lowercase letters"},
		{"-bench", "begin and end with a letter or a digit"}, {"bench.", "begin and end"},
		{"my..bucket", "no two dots"}, {"192.168.1.10", "IP address"},
		{"xn--bench", "begin with xn--"}, {"bench-s3alias", "end with -s3alias"},
	} {
		err := s3.CheckBucketName(c.name)
		switch {
		case c.rule == "" && err != nil:
			t.Errorf("%q: %v, want valid", c.name, err)
		case c.rule != "" && (err == nil || !strings.Contains(err.Error(), c.rule)):
			t.Errorf("%q: %v, want the rule %q named", c.name, err, c.rule)
		}
	}
}

// A profile's endpoint_url is used as the aws CLI uses it: its services
// section's s3 endpoint first, then its own.
func TestProfileEndpoint(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	err := os.WriteFile(cfg, []byte(`[profile plain]
endpoint_url = http://127.0.0.1:9000
region = us-east-1

[profile svc]
endpoint_url = http://127.0.0.1:1
services = local-s3

[services local-s3]
s3 =
  endpoint_url = http://127.0.0.1:9100

[profile none]
region = us-east-1
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", cfg)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	for profile, want := range map[string]string{"plain": "http://127.0.0.1:9000", "svc": "http://127.0.0.1:9100", "none": ""} {
		got, err := s3.ProfileEndpoint(context.Background(), profile)
		if err != nil || got != want {
			t.Errorf("profile %s: %q, %v; want %q", profile, got, err, want)
		}
	}
}
