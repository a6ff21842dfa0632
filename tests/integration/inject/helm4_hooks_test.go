//go:build integration

package inject

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// TestHelm4InstallsHooksWithCredentials installs, with Helm 4 and the proxykit
// post-renderer plugin and a proxy URL with a password, a chart whose schema
// migration runs as a pre-install Job (tests/testdata/hooked: the pattern most
// applications with a database ship) into the loopback API server. Helm 4
// post-renders the hook, so the Job reads the proxy Secret, and creates the
// release's ordinary objects only after the pre-install hooks finished: inject
// makes that Secret a hook of its own, weighted first. The loopback control
// plane runs no Job controller and no kubelet: standInForJobs completes a Job
// once every Secret its Pods read exists, as a kubelet starts a container only
// then (without the Secret the install would wait until its timeout). An
// upgrade with a rotated password writes the Secret afresh before the hook runs
// again.
func TestHelm4InstallsHooksWithCredentials(t *testing.T) {
	harness.Parallel(t)
	cp := harness.StartControlPlane(t)
	cp.EnsureNamespace(t, "shop")
	env4 := helm4Plugin(t, itest.ProxykitCLI(t))
	jobs := standInForJobs(t, cp, "shop")
	install := func(verb, values string) {
		t.Helper()
		file := filepath.Join(t.TempDir(), "proxy-values.yaml")
		require.NoError(t, os.WriteFile(file, []byte(values), 0o600))
		itest.RunHelm(t, env4, "helm4", verb, "shop", fixture.Path("tests", "testdata", "hooked"), "-n", "shop", "--kubeconfig", cp.Kubeconfig, "--timeout", "60s",
			"--post-renderer", "proxykit", "--post-renderer-args", "-f", "--post-renderer-args", file, "--post-renderer-args", "-n", "--post-renderer-args", "shop")
	}
	ctx := context.Background()
	secretURL := func() string {
		s, err := cp.Client.CoreV1().Secrets("shop").Get(ctx, "shop-proxy-credentials", metav1.GetOptions{})
		require.NoError(t, err, "the proxy Secret outlives the hooks")
		assert.Equal(t, "pre-install,pre-upgrade,pre-rollback", s.Annotations["helm.sh/hook"])
		return string(s.Data["HTTP_PROXY"])
	}

	install("install", itest.InjectValuesCredentials)
	assert.Equal(t, 1, jobs.completed(), "the migration ran")
	assert.Zero(t, jobs.waited(), "no Job ever waited for its Secret")
	assert.Contains(t, secretURL(), fixture.Password)
	web, err := cp.Client.AppsV1().Deployments("shop").Get(ctx, "shop-web", metav1.GetOptions{})
	require.NoError(t, err, "the release's objects follow the hooks")
	assert.Equal(t, "shop-proxy-credentials", fixture.EnvMap(web.Spec.Template.Spec.Containers[0].Env)["HTTPS_PROXY"].ValueFrom.SecretKeyRef.Name)

	rotated := strings.ReplaceAll(itest.InjectValuesCredentials, fixture.Password, "r0tated")
	install("upgrade", rotated)
	assert.Equal(t, 2, jobs.completed(), "the migration ran again")
	assert.Zero(t, jobs.waited())
	assert.Contains(t, secretURL(), "r0tated", "written afresh before the hook")
}

// jobStandIn completes Jobs as the Job controller and a kubelet would.
type jobStandIn struct {
	mu              sync.Mutex
	done, waitCount int
}

func (j *jobStandIn) completed() int { j.mu.Lock(); defer j.mu.Unlock(); return j.done }

func (j *jobStandIn) waited() int { j.mu.Lock(); defer j.mu.Unlock(); return j.waitCount }

// standInForJobs completes every Job of ns whose Pods' Secrets all exist, and
// counts the Jobs it found waiting for one.
func standInForJobs(t *testing.T, cp *harness.ControlPlane, ns string) *jobStandIn {
	j := &jobStandIn{}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	waiting := map[string]bool{}
	go func() {
		ctx := context.Background()
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			list, err := cp.Client.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				continue
			}
			for _, job := range list.Items {
				if job.Status.CompletionTime != nil {
					continue
				}
				ready := true
				for _, name := range podSecrets(job.Spec.Template.Spec) {
					if _, err := cp.Client.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
						ready = false
					}
				}
				key := string(job.UID)
				if !ready {
					if !waiting[key] {
						waiting[key] = true
						j.mu.Lock()
						j.waitCount++
						j.mu.Unlock()
					}
					continue
				}
				now := metav1.Now()
				job.Status.StartTime, job.Status.CompletionTime, job.Status.Succeeded = &now, &now, 1
				job.Status.Conditions = []batchv1.JobCondition{
					{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now},
					{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now},
				}
				if _, err := cp.Client.BatchV1().Jobs(ns).UpdateStatus(ctx, &job, metav1.UpdateOptions{}); err != nil {
					t.Logf("complete Job %s: %v", job.Name, err)
					continue
				}
				j.mu.Lock()
				j.done++
				j.mu.Unlock()
			}
		}
	}()
	return j
}

// podSecrets are the Secrets a pod spec's env reads.
func podSecrets(spec corev1.PodSpec) []string {
	var out []string
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				out = append(out, e.ValueFrom.SecretKeyRef.Name)
			}
		}
		for _, f := range c.EnvFrom {
			if f.SecretRef != nil {
				out = append(out, f.SecretRef.Name)
			}
		}
	}
	return out
}
