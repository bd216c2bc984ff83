// Package kubernetes_test checks the Kubernetes manifests objbench ships:
// they decode strictly into the real API types, and their wiring (the
// Indexed Job's N, each worker's rank, credentials, workload, results)
// holds together.
package kubernetes_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/objbench/objbench/workload"
)

// decodeStrict reads a manifest into v, refusing any field the API type
// does not have (a misspelt key is an error, not a silently ignored one).
func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	j, err := yaml.YAMLToJSONStrict(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestIndexedJobIsWired(t *testing.T) {
	var job batchv1.Job
	decodeStrict(t, "job.yaml", &job)
	var cm corev1.ConfigMap
	decodeStrict(t, "workload.yaml", &cm)
	var secret corev1.Secret
	decodeStrict(t, "secret.yaml", &secret)

	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v, want Indexed: each pod needs its JOB_COMPLETION_INDEX", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism {
		t.Fatalf("completions %v, parallelism %v: want equal, every worker at once", s.Completions, s.Parallelism)
	}
	n := int(*s.Completions)
	if s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != 0 {
		t.Errorf("backoffLimitPerIndex %v, want 0: a retried worker would rejoin a run that moved on", s.BackoffLimitPerIndex)
	}
	if len(s.Template.Spec.Containers) != 1 || s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Fatalf("want one container, restartPolicy Never")
	}
	c := s.Template.Spec.Containers[0]
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"--worker=auto", "--workers-total=" + strconv.Itoa(n), "--out=s3://", "--endpoint-url=$(S3_ENDPOINT)"} {
		if !strings.Contains(args, want) {
			t.Errorf("args %q lack %s", args, want)
		}
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	// Every worker's run id is the Job's name and uid: the same in all its
	// pods, new for every Job applied (also under the same name).
	for _, label := range []string{batchv1.JobNameLabel, batchv1.ControllerUidLabel} {
		i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool {
			return e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.labels['"+label+"']"
		})
		runID := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "OBJBENCH_RUN_ID" })
		if i < 0 || runID < i || !strings.Contains(c.Env[runID].Value, "$("+c.Env[i].Name+")") {
			t.Errorf("OBJBENCH_RUN_ID %+v: want it to name the label %s through a variable defined before it", env["OBJBENCH_RUN_ID"], label)
		}
	}
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		e := env[k]
		if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != secret.Name {
			t.Errorf("%s %+v: want it from the Secret %s", k, e, secret.Name)
			continue
		}
		if _, ok := secret.StringData[e.ValueFrom.SecretKeyRef.Key]; !ok {
			t.Errorf("%s reads key %q, which the Secret does not have", k, e.ValueFrom.SecretKeyRef.Key)
		}
	}
	if _, ok := env["S3_ENDPOINT"]; !ok {
		t.Error("the args use $(S3_ENDPOINT), which no env var sets")
	}
	// The workload argument is a file of the ConfigMap, mounted from it.
	var mount *corev1.VolumeMount
	for i := range c.VolumeMounts {
		if strings.HasPrefix(c.Args[1], c.VolumeMounts[i].MountPath+"/") {
			mount = &c.VolumeMounts[i]
		}
	}
	if c.Args[0] != "run" || mount == nil {
		t.Fatalf("args %v: want run and a workload file on a mounted volume", c.Args)
	}
	vol := slices.IndexFunc(s.Template.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == mount.Name })
	if vol < 0 || s.Template.Spec.Volumes[vol].ConfigMap == nil || s.Template.Spec.Volumes[vol].ConfigMap.Name != cm.Name {
		t.Fatalf("the workload volume is not the ConfigMap %s", cm.Name)
	}
	file := strings.TrimPrefix(c.Args[1], mount.MountPath+"/")
	text, ok := cm.Data[file]
	if !ok {
		t.Fatalf("the ConfigMap has no %s", file)
	}
	sp, _, err := workload.DecodeYAML(file, []byte(text))
	if err != nil {
		t.Fatalf("the ConfigMap's workload: %v", err)
	}
	if errs := sp.Validate(); len(errs) > 0 {
		t.Fatalf("the ConfigMap's workload: %v", errs)
	}
}

// The Job's pods run as a non-root user with a read-only root file system
// and no privileges; the image's working directory is a writable emptyDir
// (objbench writes there only when asked); the pods of one Job spread
// over nodes.
func TestJobPodsAreLockedDownAndSpread(t *testing.T) {
	var job batchv1.Job
	decodeStrict(t, "job.yaml", &job)
	spec := job.Spec.Template.Spec
	c := spec.Containers[0]
	psc, csc := spec.SecurityContext, c.SecurityContext
	switch {
	case psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0:
		t.Errorf("pod securityContext %+v: want runAsNonRoot and a non-zero runAsUser", psc)
	case csc == nil || csc.ReadOnlyRootFilesystem == nil || !*csc.ReadOnlyRootFilesystem:
		t.Errorf("container securityContext %+v: want readOnlyRootFilesystem", csc)
	case csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation || csc.Capabilities == nil ||
		!slices.Equal(csc.Capabilities.Drop, []corev1.Capability{"ALL"}):
		t.Errorf("container securityContext %+v: want no privilege escalation and every capability dropped", csc)
	}
	stages := dockerStages(t, "../Dockerfile")
	workdir := instruction(stages, stages[len(stages)-1], "WORKDIR")
	if u := instruction(stages, stages[len(stages)-1], "USER"); psc != nil && psc.RunAsUser != nil && !strings.HasPrefix(u, strconv.FormatInt(*psc.RunAsUser, 10)) {
		t.Errorf("the image's USER %s, the Job's runAsUser %d: want the same", u, *psc.RunAsUser)
	}
	m := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == workdir })
	if c.WorkingDir != "" || m < 0 {
		t.Errorf("workingDir %q, mounts %+v: want the image's WORKDIR %s, with a volume on it", c.WorkingDir, c.VolumeMounts, workdir)
	} else if v := slices.IndexFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == c.VolumeMounts[m].Name }); v < 0 || spec.Volumes[v].EmptyDir == nil || c.VolumeMounts[m].ReadOnly {
		t.Errorf("the volume on %s is not a writable emptyDir", workdir)
	}
	if len(spec.TopologySpreadConstraints) != 1 {
		t.Fatalf("topologySpreadConstraints %+v: want one, over nodes", spec.TopologySpreadConstraints)
	}
	tc := spec.TopologySpreadConstraints[0]
	if tc.TopologyKey != corev1.LabelHostname || tc.MaxSkew != 1 || tc.WhenUnsatisfiable != corev1.DoNotSchedule {
		t.Errorf("spread %+v: want at most one more pod on any node than on another (%s, maxSkew 1, DoNotSchedule)", tc, corev1.LabelHostname)
	}
	if tc.LabelSelector == nil || len(tc.LabelSelector.MatchLabels) == 0 {
		t.Fatalf("spread %+v: no labelSelector", tc)
	}
	for k, v := range tc.LabelSelector.MatchLabels {
		if job.Spec.Template.Labels[k] != v {
			t.Errorf("the spread selects %s=%s, which the pods do not carry", k, v)
		}
	}
	if !slices.Contains(tc.MatchLabelKeys, batchv1.ControllerUidLabel) {
		t.Errorf("spread matchLabelKeys %v: want %s, so that only this Job's pods count", tc.MatchLabelKeys, batchv1.ControllerUidLabel)
	}
	text, err := os.ReadFile("job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "nodeSelector:") {
		t.Error("job.yaml does not say how to pin the pods to nodes (a nodeSelector in its comments)")
	}
}
