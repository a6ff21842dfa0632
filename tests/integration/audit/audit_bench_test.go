//go:build integration

package audit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// BenchmarkAudit times `proxykit audit -A` on 500 and then 5,000 Pods stored in
// a loopback kube-apiserver, each with the six proxy variables (so every rule
// runs on every container) and the record of an older configuration (so every
// Pod is stale-proxy-env), and reports the process's peak memory: Pods are
// listed a page of 500 at a time, so memory should grow far slower than the Pods.
// Rollout times `proxykit rollout -A` (a dry run: the audit and the plan) on the
// same Pods. `make bench` prints the time ratios (linear: 10x the Pods at most
// 11x the time).
func BenchmarkAudit(b *testing.B) {
	cp := harness.StartControlPlane(b)
	cp.EnsureNamespace(b, "apps")
	fast := rest.CopyConfig(cp.Config)
	fast.QPS, fast.Burst = 5000, 5000
	client, err := kubernetes.NewForConfig(fast)
	require.NoError(b, err)
	values := filepath.Join(b.TempDir(), "values.yaml")
	require.NoError(b, os.WriteFile(values, []byte(fixture.PolicyValuesPlain), 0o600))
	var proxyEnv []corev1.EnvVar
	for _, e := range fixture.PolicyProxyEnv {
		proxyEnv = append(proxyEnv, e)
	}
	old := map[string]string{proxytest.AnnotationProxyConfig: fixture.Record(b, strings.Replace(fixture.PolicyValuesPlain, "3128", "3130", 1))}
	bin := itest.ProxykitCLI(b)
	created := 0
	for _, n := range []int{500, 5000} {
		createPods(b, client, created, n, old, proxyEnv)
		created = n
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			benchCLI(b, bin, "audit", "--kubeconfig", cp.Kubeconfig, "-A", "-f", values, "-o", "json")
		})
		b.Run(fmt.Sprintf("rollout/pods=%d", n), func(b *testing.B) { benchCLI(b, bin, "rollout", "--kubeconfig", cp.Kubeconfig, "-A", "-f", values) })
	}
}

// benchCLI runs the CLI b.N times and reports its peak memory; exit status 1
// (findings) is what the benchmarks expect of audit.
func benchCLI(b *testing.B, bin string, args ...string) {
	var peak int64
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, args...)
		out, err := cmd.Output()
		if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() == 1 {
			err = nil
		}
		require.NoError(b, err, "%s", out)
		if rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss; rss > peak {
			peak = rss
		}
	}
	b.ReportMetric(float64(peak)/1024, "peak-MiB")
}

// createPods creates Pods from..to-1 in apps, 16 at a time.
func createPods(b *testing.B, client kubernetes.Interface, from, to int, annotations map[string]string, env []corev1.EnvVar) {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, to-from)
	next := make(chan int)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := fixture.Pod(fmt.Sprintf("p%05d", i), "apps", annotations, fixture.Ctr("app", env...))
				if _, err := client.CoreV1().Pods("apps").Create(context.Background(), &p, metav1.CreateOptions{}); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := from; i < to; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(b, err)
	}
}
