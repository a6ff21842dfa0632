package tests

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/proxytest"

	"github.com/proxykit/proxykit/internal/worktime"
)

// hostileSizes are a few bytes or a few megabytes of manifest that once made
// inject and check run for minutes: $(VAR) references that expand to 100 MB,
// a ConfigMap of 60,000 single-label URLs, and hosts spread over many files
// that together overrun NO_PROXY. Each is named by what a pod template holds.
func hostileSizes() map[string]string {
	pod := func(env, volumes, mounts string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n" + volumes + "  containers:\n    - name: c\n      image: x\n" + env + mounts
	}
	// a file of n URLs, from the host named from on; short ones (17 bytes a
	// line) keep 60,000 of them within the 1 MiB a ConfigMap holds
	hostFile := func(name string, from, n int, short bool) string {
		var b strings.Builder
		fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: shop}\ndata:\n  urls.txt: |\n", name)
		line := "    http://host-%06d:8080\n"
		if short {
			line = "    http://h%05d:80\n"
		}
		for i := range n {
			fmt.Fprintf(&b, line, from+i)
		}
		return b.String()
	}
	big := "      env:\n        - {name: V, value: \"http://big:8080/" + strings.Repeat("a", 50<<10) + "\"}\n"
	var many strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&many, "        - {name: A%d, value: \"$(V)\"}\n", i)
	}
	// 30 files of 500 hosts: all in one container, which is read for 1,024, and
	// two to each of 15 Pods, whose hosts together overrun NO_PROXY
	var files, volumes, mounts, pods []string
	for i := range 30 {
		files = append(files, hostFile(fmt.Sprintf("hosts%02d", i), i*500, 500, false))
		volumes = append(volumes, fmt.Sprintf("    - {name: h%02d, configMap: {name: hosts%02d}}\n", i, i))
		mounts = append(mounts, fmt.Sprintf("        - {name: h%02d, mountPath: /etc/h%02d}\n", i, i))
		if i%2 == 1 {
			pods = append(pods, strings.Replace(pod("", "  volumes:\n"+volumes[i-1]+volumes[i], "      volumeMounts:\n"+mounts[i-1]+mounts[i]), "name: p,", fmt.Sprintf("name: p%02d,", i), 1))
		}
	}
	return map[string]string{
		"small":                       hostFile("hosts", 0, 10, false) + "---\n" + pod("", "  volumes: [{name: h, configMap: {name: hosts}}]\n", "      volumeMounts: [{name: h, mountPath: /etc/h}]\n"),
		"one value, 2,000 references": pod(big+"        - {name: A, value: \""+strings.Repeat("$(V)", 2000)+"\"}\n", "", ""),
		"2,000 values, one reference": pod(big+many.String(), "", ""),
		"60,000 URLs in one file":     hostFile("hosts", 0, 60000, true) + "---\n" + pod("", "  volumes: [{name: h, configMap: {name: hosts}}]\n", "      volumeMounts: [{name: h, mountPath: /etc/h}]\n"),
		"15,000 URLs in 30 files":     strings.Join(files, "---\n") + "---\n" + pod("", "  volumes:\n"+strings.Join(volumes, ""), "      volumeMounts:\n"+strings.Join(mounts, "")),
		"15,000 URLs in 15 Pods":      strings.Join(append(files, pods...), "---\n"),
	}
}

// inject and check stay within 2 s on each, and report, as a ratio, what each
// cost against a small input; the one whose hosts would overrun NO_PROXY is
// refused before any render, naming the ConfigMap.
// It runs here, without the race detector, which makes this work ten times
// slower; the time is the process's CPU time, which the other suites that
// make test runs beside it do not lengthen.
func TestInjectAndCheckBoundedWork(t *testing.T) {
	// the heap bounded as users run it: the garbage collector at Go's default, not
	// at make test's GOGC, which lets garbage grow to 5x the live heap
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	var values map[string]any
	require.NoError(t, yaml.Unmarshal([]byte("proxy: {http: \"http://proxy.corp:3128\"}\ncluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12]}\n"), &values))
	facts := proxytest.Cluster{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}}
	inputs := hostileSizes()
	notes := map[string][]string{}
	peak := map[string]uint64{} // the most heap in use while inject and check ran
	measure := func(name, stream string) (time.Duration, error) {
		runtime.GC()
		done := make(chan struct{})
		sampled := make(chan uint64)
		go func() {
			var most uint64
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				most = max(most, ms.HeapInuse)
				select {
				case <-done:
					sampled <- most
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		}()
		defer func() { close(done); peak[name] = <-sampled }()
		began := worktime.Used()
		out, result, err := inject.Stream([]byte(stream), inject.Options{Values: values, Namespace: "shop"})
		notes[name] = result.Notes
		if err == nil {
			m, perr := proxytest.Parse(string(out))
			require.NoError(t, perr)
			proxytest.Check(m, proxytest.WithCluster(facts))
		}
		m, perr := proxytest.Parse(stream)
		require.NoError(t, perr)
		proxytest.Check(m, proxytest.WithCluster(facts))
		return worktime.Used() - began, err
	}
	small, err := measure("small", inputs["small"])
	require.NoError(t, err)
	for name, stream := range inputs {
		if name == "small" {
			continue
		}
		took, err := measure(name, stream)
		t.Logf("%s: %d KiB of manifest, inject and check %v of CPU, %.0fx the small input's; at most %d MiB of heap, %.1fx", name, len(stream)>>10,
			took.Round(time.Millisecond), float64(took)/float64(small), peak[name]>>20, float64(peak[name])/float64(peak["small"]))
		assert.Less(t, took, 2*time.Second, name)
		assert.Less(t, peak[name], uint64(200<<20), name)
		if name == "15,000 URLs in 15 Pods" {
			assert.ErrorContains(t, err, "over the kernel's limit of 131072 for one environment string")
			assert.ErrorContains(t, err, "500 of them are in ConfigMap/hosts00 key urls.txt, mounted at /etc/h00")
		} else {
			assert.NoError(t, err, name)
		}
	}
	assert.Contains(t, strings.Join(notes["60,000 URLs in one file"], "\n"), "Pod/p container c: not read for calls, so none of its hosts was added to NO_PROXY: ConfigMap/hosts key urls.txt, mounted at /etc/h (60000 hosts)")
	assert.Contains(t, strings.Join(notes["15,000 URLs in 30 files"], "\n"), "Pod/p container c: not read for calls, so none of its hosts was added to NO_PROXY: 13976 more hosts past the first 1024 the container calls (from ConfigMap/hosts02 key urls.txt, mounted at /etc/h02 on)")
}
