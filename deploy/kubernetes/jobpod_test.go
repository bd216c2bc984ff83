package kubernetes_test

import (
	"crypto/rand"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// pod is one worker of the Job as the kubelet would start it: the
// container's environment and arguments with every reference resolved,
// and its volumes.
type pod struct {
	env      []string // NAME=value, in the manifest's order, then JOB_COMPLETION_INDEX
	args     []string
	mounts   []corev1.VolumeMount
	volumes  map[string]corev1.Volume
	user     string // UID:GID
	readOnly bool   // the root file system
	dropAll  bool   // every capability dropped
	noPriv   bool   // no privilege escalation
}

// jobUID is a uid as the API server gives a new Job.
func jobUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

var refPattern = regexp.MustCompile(`\$\$|\$\([A-Za-z_][A-Za-z0-9_.-]*\)`)

// expand resolves $(VAR) as Kubernetes does in env values and args: a
// variable defined before (or the Job's own), $$ a literal $, an unknown
// reference left as written.
func expand(s string, vars map[string]string) string {
	return refPattern.ReplaceAllStringFunc(s, func(ref string) string {
		if ref == "$$" {
			return "$"
		}
		if v, ok := vars[ref[2:len(ref)-1]]; ok {
			return v
		}
		return ref
	})
}

// podOf resolves the Job's pod for index i: the labels the Job controller
// sets (job-name, controller-uid), JOB_COMPLETION_INDEX, the Secret's keys
// as given, and env values the user overrides (set: S3_ENDPOINT).
func podOf(t *testing.T, job *batchv1.Job, uid string, i int, secret, set map[string]string) pod {
	t.Helper()
	spec := job.Spec.Template.Spec
	c := spec.Containers[0]
	labels := map[string]string{}
	for k, v := range job.Spec.Template.Labels {
		labels[k] = v
	}
	labels[batchv1.JobNameLabel], labels[batchv1.ControllerUidLabel] = job.Name, uid
	labels[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(i)
	vars := map[string]string{}
	var p pod
	for _, e := range c.Env {
		v := expand(e.Value, vars)
		switch from := e.ValueFrom; {
		case set[e.Name] != "":
			v = set[e.Name]
		case from == nil:
		case from.FieldRef != nil:
			m := regexp.MustCompile(`^metadata\.labels\['([^']+)'\]$`).FindStringSubmatch(from.FieldRef.FieldPath)
			if m == nil || labels[m[1]] == "" {
				t.Fatalf("env %s: field %s is not a label the Job's pods have", e.Name, from.FieldRef.FieldPath)
			}
			v = labels[m[1]]
		case from.SecretKeyRef != nil:
			var ok bool
			if v, ok = secret[from.SecretKeyRef.Key]; !ok {
				t.Fatalf("env %s: the Secret has no key %s", e.Name, from.SecretKeyRef.Key)
			}
		default:
			t.Fatalf("env %s: a source this test does not know: %+v", e.Name, from)
		}
		vars[e.Name] = v
		p.env = append(p.env, e.Name+"="+v)
	}
	// An Indexed Job's pods have their index in the environment.
	p.env = append(p.env, "JOB_COMPLETION_INDEX="+strconv.Itoa(i))
	for _, a := range c.Args {
		p.args = append(p.args, expand(a, vars))
	}
	p.mounts = c.VolumeMounts
	p.volumes = map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		p.volumes[v.Name] = v
	}
	psc, csc := spec.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsUser == nil || csc == nil {
		t.Fatal("the Job sets no user (securityContext.runAsUser) or no container securityContext")
	}
	gid := *psc.RunAsUser
	if psc.RunAsGroup != nil {
		gid = *psc.RunAsGroup
	}
	p.user = fmt.Sprintf("%d:%d", *psc.RunAsUser, gid)
	p.readOnly = csc.ReadOnlyRootFilesystem != nil && *csc.ReadOnlyRootFilesystem
	p.noPriv = csc.AllowPrivilegeEscalation != nil && !*csc.AllowPrivilegeEscalation
	p.dropAll = csc.Capabilities != nil && len(csc.Capabilities.Drop) == 1 && csc.Capabilities.Drop[0] == "ALL"
	return p
}

// arg is the value of --name=value in args.
func arg(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// withArg replaces --name=... in args (the value a user edits, like N).
func withArg(t *testing.T, args []string, name, value string) []string {
	t.Helper()
	out := append([]string(nil), args...)
	for i, a := range out {
		if strings.HasPrefix(a, name+"=") {
			out[i] = name + "=" + value
			return out
		}
	}
	t.Fatalf("args %v have no %s=", args, name)
	return nil
}
