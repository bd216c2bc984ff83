package cli

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/workload"
)

func TestFileStorageFillsOnlyWhatFlagsLeaveAndKeepsItsKeysAtHome(t *testing.T) {
	file := &workload.Storage{Type: "s3", Endpoint: "http://cluster-a:9000", Region: "r-a", Addressing: "path",
		AccessKey: "AK-A", SecretKey: "SK-A"}
	for _, c := range []struct {
		name      string
		flags     []string
		endpoint  string
		key       string
		fromFile  bool
		region    string
		addressed string
	}{
		{"file alone", nil, "http://cluster-a:9000", "AK-A", true, "r-a", "path"},
		{"another endpoint: the file's keys stay home", []string{"--endpoint-url", "http://cluster-b:9000"}, "http://cluster-b:9000", "", false, "r-a", "path"},
		{"a profile's credentials win", []string{"--profile", "p"}, "http://cluster-a:9000", "", true, "r-a", "path"},
		{"flags win", []string{"--region", "r-b", "--addressing", "virtual"}, "http://cluster-a:9000", "AK-A", true, "r-b", "virtual"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var o targetOptions
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			o.register(fs)
			if err := fs.Parse(c.flags); err != nil {
				t.Fatal(err)
			}
			o.applyStorage(file, fs)
			if o.endpoint != c.endpoint || o.accessKey != c.key || o.fromFile != c.fromFile || o.region != c.region || o.addressing != c.addressed {
				t.Errorf("endpoint %q key %q fromFile %v region %q addressing %q", o.endpoint, o.accessKey, o.fromFile, o.region, o.addressing)
			}
		})
	}
}
