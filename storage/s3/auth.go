package s3

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/smithy-go/logging"
)

// caBundle is Config.CABundle, loaded. Both fields are nil when none is set.
type caBundle struct {
	pem  []byte
	pool *x509.CertPool
	err  error // why the configured bundle cannot be used
}

func loadCABundle(path string) caBundle {
	if path == "" {
		return caBundle{}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return caBundle{err: err}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return caBundle{err: fmt.Errorf("%s: no PEM certificates in it", path)}
	}
	return caBundle{pem: b, pool: pool}
}

// resolveAuth returns a credentials provider (tried once here) and the
// region, resolved as the aws CLI does.
func resolveAuth(ctx context.Context, c Config, ca caBundle) (aws.CredentialsProvider, string, error) {
	static := c.AccessKey != "" || c.SecretKey != "" || c.SessionToken != ""
	if static && (c.AccessKey == "" || c.SecretKey == "") {
		return nil, "", errors.New("s3: static credentials need both an access key and a secret key")
	}
	var creds aws.CredentialsProvider
	if static {
		v := aws.Credentials{AccessKeyID: c.AccessKey, SecretAccessKey: c.SecretKey,
			SessionToken: c.SessionToken, Source: "objbench static"}
		creds = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return v, nil })
		if c.Region != "" {
			// Nothing left for the SDK's config to resolve.
			return creds, c.Region, nil
		}
	}
	cfg, err := loadSDKConfig(ctx, c, ca)
	if err != nil {
		return nil, "", err
	}
	region := cfg.Region
	if region == "" {
		region = defaultRegion
	}
	if !static {
		creds, err = chainCredentials(ctx, cfg, ca)
		if err != nil {
			return nil, "", err
		}
	}
	return creds, region, nil
}

func loadSDKConfig(ctx context.Context, c Config, ca caBundle) (aws.Config, error) {
	// The SDK must not print (its warnings would land in objbench's output).
	opts := []func(*config.LoadOptions) error{config.WithLogger(logging.Nop{})}
	if c.Endpoint != "" {
		// A custom endpoint is not EC2's S3: asking the instance metadata
		// service for credentials would only send traffic off the machine
		// and wait for its timeouts.
		opts = append(opts, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	if c.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(c.Profile))
	}
	if c.Region != "" {
		opts = append(opts, config.WithRegion(c.Region))
	}
	switch {
	case ca.pem != nil:
		// The SDK's own https calls (SSO, STS) trust what the endpoint does.
		opts = append(opts, config.WithCustomCABundle(bytes.NewReader(ca.pem)))
	case ca.err != nil:
		// The bundle is unusable but does not matter for this endpoint. The
		// SDK would read it again (from AWS_CA_BUNDLE) and refuse to load at
		// all; give it a root nobody holds the key to instead, so only the
		// SDK's own https calls fail, and only if they are needed.
		root, err := untrustedRootPEM()
		if err != nil {
			return aws.Config{}, fmt.Errorf("s3: %w", err)
		}
		opts = append(opts, config.WithCustomCABundle(bytes.NewReader(root)))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("s3: loading AWS config: %w", err)
	}
	return cfg, nil
}

// chainCredentials takes the SDK's credential chain, cached, and tries it
// once so a run without credentials fails before it starts.
func chainCredentials(ctx context.Context, cfg aws.Config, ca caBundle) (aws.CredentialsProvider, error) {
	p := cfg.Credentials
	if p == nil {
		return nil, errors.New("s3: no credentials found")
	}
	if !aws.IsCredentialsProvider(p, (*aws.CredentialsCache)(nil)) {
		p = aws.NewCredentialsCache(p)
	}
	if ca.err != nil {
		p = caNoted{p: p, note: ca.err}
	}
	if _, err := p.Retrieve(ctx); err != nil {
		return nil, fmt.Errorf("s3: no usable credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or use a profile): %w", err)
	}
	return p, nil
}

// caNoted adds why the CA bundle was unusable to credential errors, since
// that is the likely cause when fetching them over https fails.
type caNoted struct {
	p    aws.CredentialsProvider
	note error
}

func (c caNoted) Retrieve(ctx context.Context) (aws.Credentials, error) {
	v, err := c.p.Retrieve(ctx)
	if err != nil {
		return v, fmt.Errorf("%w (CA bundle unusable: %v)", err, c.note)
	}
	return v, nil
}

// untrustedRootPEM makes a self-signed, long-expired root whose key is
// thrown away: a CA bundle that validates nothing.
func untrustedRootPEM() ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "objbench: no usable CA bundle"},
		NotBefore:             time.Unix(0, 0),
		NotAfter:              time.Unix(3600, 0),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}
