package replay_test

import (
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/objbench/objbench/replay"
	"github.com/objbench/objbench/workload"
)

const ns = "objbench/RUN-ID/replay/"

var secret = []byte("0123456789abcdef-test-secret")

func TestKeyMapEscapesWhatIsUnsafe(t *testing.T) {
	m, err := replay.NewKeyMap(ns, replay.KeyMapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"photos/2026/a.jpg": ns + "photos/2026/a.jpg",
		"../../etc/passwd":  ns + "%2E%2E/%2E%2E/etc/passwd",
		"./a//b/":           ns + "%2E/a/%/b/%",
		"/abs":              ns + "%/abs",
		"100%/x":            ns + "100%25/x",
		"tab\there\\win":    ns + "tab%09here%5Cwin",
		"bad\xffutf8":       ns + "bad%FFutf8",
		"ünï/日本/😀":          ns + "ünï/日本/😀",
		"":                  ns + "%",
	} {
		if got := m.Key("b", key); got != want {
			t.Errorf("Key(%q) = %q, want %q", key, got, want)
		}
	}
	kb, _ := replay.NewKeyMap(ns, replay.KeyMapOptions{KeepBucket: true})
	if got := kb.Key("logs", "a/b"); got != ns+"logs/a/b" {
		t.Errorf("KeepBucket: %q", got)
	}
}

func TestKeyMapAnonymizesEachSegmentWithTheSecret(t *testing.T) {
	m, _ := replay.NewKeyMap(ns, replay.KeyMapOptions{Anonymize: true, Secret: secret})
	a, b := m.Key("b", "users/alice/inbox/1"), m.Key("b", "users/bob/inbox/1")
	as, bs := strings.Split(strings.TrimPrefix(a, ns), "/"), strings.Split(strings.TrimPrefix(b, ns), "/")
	if len(as) != 4 || as[0] != bs[0] || as[1] == bs[1] || as[2] != bs[2] || as[3] != bs[3] {
		t.Errorf("segments %v and %v: equal segments must hash equal, others differ", as, bs)
	}
	if strings.Contains(a, "alice") || strings.Contains(a, "users") {
		t.Errorf("%q shows a name", a)
	}
	other, _ := replay.NewKeyMap(ns, replay.KeyMapOptions{Anonymize: true, Secret: []byte("another secret of 16+ bytes")})
	if other.Key("b", "users/alice/inbox/1") == a {
		t.Error("two secrets gave the same hashes")
	}
	if _, err := replay.NewKeyMap(ns, replay.KeyMapOptions{Anonymize: true, Secret: []byte("short")}); err == nil {
		t.Error("a 5-byte secret was taken")
	}
}

func TestKeyMapBoundsLengthAndKeepsKeysApart(t *testing.T) {
	m, _ := replay.NewKeyMap(ns, replay.KeyMapOptions{MaxLen: 100})
	long := strings.Repeat("é", 200)
	a, b := m.Key("b", long+"a"), m.Key("b", long+"b")
	if len(a) > 100 || len(b) > 100 || a == b || !utf8.ValidString(a) {
		t.Errorf("truncated keys %q (%d bytes) and %q: want distinct, valid and at most 100 bytes", a, len(a), b)
	}
	esc := m.Key("b", strings.Repeat("\x01", 60))
	if len(esc) > 100 || strings.Contains(esc[len(esc)-20:], "%0%") {
		t.Errorf("an escape was cut: %q", esc)
	}
}

func TestNewKeyMapRefusesBadNamespaces(t *testing.T) {
	for _, n := range []string{"../x/", "a//b/", "/abs/", "ctl\x01/", strings.Repeat("n", 1000) + "/"} {
		if _, err := replay.NewKeyMap(n, replay.KeyMapOptions{}); err == nil {
			t.Errorf("namespace %q was taken", n)
		}
	}
}

// checkKey asserts every promise KeyMap makes about a key.
func checkKey(t *testing.T, m *replay.KeyMap, max int, bucket, key string) string {
	got := m.Key(bucket, key)
	rest, ok := strings.CutPrefix(got, ns)
	switch {
	case !ok:
		t.Fatalf("Key(%q) = %q does not start with the namespace", key, got)
	case len(got) > max:
		t.Fatalf("Key(%q) is %d bytes, above %d", key, len(got), max)
	case !utf8.ValidString(got):
		t.Fatalf("Key(%q) = %q is not UTF-8", key, got)
	case !fs.ValidPath(got):
		t.Fatalf("Key(%q) = %q is not a valid path (empty, . or .. element)", key, got)
	case strings.ContainsAny(got, "\\\x00\n\r\t"):
		t.Fatalf("Key(%q) = %q holds a control character or backslash", key, got)
	}
	if err := workload.CheckPrefix(rest); err != nil {
		t.Fatalf("Key(%q) = %q: %v", key, got, err)
	}
	for _, seg := range strings.Split(rest, "/") {
		if seg == "" || seg == "." || seg == ".." {
			t.Fatalf("Key(%q) = %q has segment %q", key, got, seg)
		}
	}
	return got
}

// FuzzKeyMap: whatever a log holds, the mapped key starts with the
// namespace, has no empty, "." or ".." segment, stays within the length,
// and two different keys never map to one.
func FuzzKeyMap(f *testing.F) {
	f.Add("b", "../a/./b//c/", "x", false, false, 0)
	f.Add("..", "%2E%2E", "%", true, true, 60)
	f.Add("b", strings.Repeat("\xff", 400), strings.Repeat("\xff", 401), false, false, 0)
	f.Fuzz(func(t *testing.T, bucket, k1, k2 string, anon, keepBucket bool, maxLen int) {
		maxLen = 60 + (max(maxLen, 0) % 1000)
		m, err := replay.NewKeyMap(ns, replay.KeyMapOptions{Anonymize: anon, Secret: secret, KeepBucket: keepBucket, MaxLen: maxLen})
		if err != nil {
			t.Fatal(err)
		}
		a, b := checkKey(t, m, maxLen, bucket, k1), checkKey(t, m, maxLen, bucket, k2)
		if k1 != k2 && a == b {
			t.Fatalf("%q and %q both map to %q", k1, k2, a)
		}
	})
}
