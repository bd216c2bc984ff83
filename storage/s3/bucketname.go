package s3

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"
)

// CheckBucketName says which of S3's naming rules for general purpose
// buckets name breaks, or nil. Stores answer a bad name with a bare 400;
// checked first, the user learns the rule instead.
func CheckBucketName(name string) error {
	bad := func(rule string) error { return fmt.Errorf("bucket name %q: %s", name, rule) }
	switch {
	case len(name) < 3 || len(name) > 63:
		return bad("S3 bucket names are 3 to 63 characters long")
	case strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789.-") != "":
		return bad("S3 bucket names use only lowercase letters, digits, dots and hyphens")
	case !alnum(name[0]) || !alnum(name[len(name)-1]):
		return bad("S3 bucket names begin and end with a letter or a digit")
	case strings.Contains(name, ".."):
		return bad("S3 bucket names have no two dots in a row")
	case isIPv4(name):
		return bad("S3 bucket names are not formatted as an IP address")
	}
	for _, p := range []string{"xn--", "sthree-", "amzn-s3-demo-"} {
		if strings.HasPrefix(name, p) {
			return bad("S3 bucket names do not begin with " + p)
		}
	}
	for _, s := range []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"} {
		if strings.HasSuffix(name, s) {
			return bad("S3 bucket names do not end with " + s)
		}
	}
	return nil
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isIPv4(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}

// ProfileEndpoint is the endpoint a shared config profile names for S3, as
// the aws CLI reads it (the config file found as the SDK finds it,
// AWS_CONFIG_FILE included): the profile's services section's s3
// endpoint_url, else its own endpoint_url; "" when it names none or says
// to ignore configured endpoints.
func ProfileEndpoint(ctx context.Context, profile string) (string, error) {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithSharedConfigProfile(profile))
	if err != nil {
		return "", fmt.Errorf("profile %s: %w", profile, err)
	}
	for _, src := range cfg.ConfigSources {
		sc, ok := src.(config.SharedConfig)
		if !ok {
			continue
		}
		if ignore, ok, _ := sc.GetIgnoreConfiguredEndpoints(ctx); ok && ignore {
			return "", nil
		}
		if ep, ok, _ := sc.GetServiceBaseEndpoint(ctx, "S3"); ok {
			return ep, nil
		}
		return sc.BaseEndpoint, nil
	}
	return "", nil
}
