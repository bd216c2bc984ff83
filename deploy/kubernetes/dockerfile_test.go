package kubernetes_test

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// stage is one FROM ... section of a Dockerfile: its base, its name and
// its instructions (continuation lines joined).
type stage struct {
	from, name string
	lines      []string
}

// dockerStages reads a Dockerfile's stages.
func dockerStages(t *testing.T, path string) []stage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var stages []stage
	var cur strings.Builder
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if more, ok := strings.CutSuffix(l, `\`); ok {
			cur.WriteString(more + " ")
			continue
		}
		cur.WriteString(l)
		line := cur.String()
		cur.Reset()
		f := strings.Fields(line)
		if strings.EqualFold(f[0], "FROM") {
			s := stage{from: f[1]}
			if len(f) == 4 && strings.EqualFold(f[2], "AS") {
				s.name = f[3]
			}
			stages = append(stages, s)
			continue
		}
		if len(stages) == 0 {
			continue // ARG before the first FROM
		}
		stages[len(stages)-1].lines = append(stages[len(stages)-1].lines, line)
	}
	return stages
}

// instruction is the last value of instruction kw in s and its bases
// (WORKDIR, USER, ENTRYPOINT carry over from FROM another stage).
func instruction(stages []stage, s stage, kw string) string {
	for {
		for _, l := range slices.Backward(s.lines) {
			if k, v, _ := strings.Cut(l, " "); strings.EqualFold(k, kw) {
				return strings.TrimSpace(v)
			}
		}
		i := slices.IndexFunc(stages, func(b stage) bool { return b.name == s.from })
		if i < 0 {
			return ""
		}
		s = stages[i]
	}
}

// shellWords splits a RUN line as sh would for the simple lines a
// Dockerfile holds: words, and "double-quoted" words.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	quoted, inWord := false, false
	for _, c := range s {
		switch {
		case c == '"':
			quoted, inWord = !quoted, true
		case (c == ' ' || c == '\t') && !quoted:
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// goBuild is the build stage's go build: its environment and arguments
// (with the output path after -o), so that the test's binary is built as
// the published image's is.
func goBuild(t *testing.T, stages []stage) (env, args []string) {
	t.Helper()
	for _, s := range stages {
		for _, l := range s.lines {
			cmd, ok := strings.CutPrefix(l, "RUN ")
			if !ok || !strings.Contains(cmd, "go build") {
				continue
			}
			words := shellWords(cmd)
			for len(words) > 0 && strings.Contains(words[0], "=") {
				env, words = append(env, words[0]), words[1:]
			}
			if len(words) < 2 || words[0] != "go" || words[1] != "build" {
				t.Fatalf("Dockerfile: %q: want [VAR=value...] go build ...", l)
			}
			return env, words[2:]
		}
	}
	t.Fatal("Dockerfile: no RUN ... go build")
	return nil, nil
}

// The published image (the default target, built from source) and the
// prebuilt target the container test builds are the same image: one
// runtime stage (non-root, a working directory, the entrypoint), the same
// files at the same places, and the binary built with the same command.
func TestDockerfileTargetsAgree(t *testing.T) {
	stages := dockerStages(t, "../Dockerfile")
	last := stages[len(stages)-1]
	pi := slices.IndexFunc(stages, func(s stage) bool { return s.name == "prebuilt" })
	if pi < 0 || last.name != "" {
		t.Fatalf("want a prebuilt stage and an unnamed last (default) stage; stages %+v", stages)
	}
	pre := stages[pi]
	if pre.from != last.from || pre.from == "" {
		t.Errorf("prebuilt is FROM %s, the default FROM %s: want one runtime stage under both", pre.from, last.from)
	}
	for _, kw := range []string{"USER", "WORKDIR", "ENTRYPOINT"} {
		if a, b := instruction(stages, pre, kw), instruction(stages, last, kw); a != b || a == "" {
			t.Errorf("%s: prebuilt %q, default %q", kw, a, b)
		}
	}
	if u := instruction(stages, last, "USER"); strings.HasPrefix(u, "0") || strings.HasPrefix(u, "root") {
		t.Errorf("USER %s: want a non-root user", u)
	}
	dests := func(s stage) []string { // where each COPY puts its file, and the file's name
		var d []string
		for _, l := range s.lines {
			if f := strings.Fields(l); strings.EqualFold(f[0], "COPY") {
				src := f[len(f)-2]
				name := src[strings.LastIndex(src, "/")+1:]
				d = append(d, f[len(f)-1]+" <- "+name)
			}
		}
		slices.Sort(d)
		return d
	}
	if a, b := dests(pre), dests(last); !slices.Equal(a, b) || len(a) == 0 {
		t.Errorf("prebuilt copies %v, the default %v: want the same files at the same places", a, b)
	}
	env, args := goBuild(t, stages)
	if !slices.Contains(env, "CGO_ENABLED=0") || !slices.Contains(args, "-o") {
		t.Errorf("go build with %v %v: want a static binary (CGO_ENABLED=0) written with -o", env, args)
	}
}
