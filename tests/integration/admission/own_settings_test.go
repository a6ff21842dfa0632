//go:build integration

package admission

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// ownSettingsPods are the containers' own settings the rules treat: empty
// placeholders, a twin set by value and by valueFrom, an own NO_PROXY (with
// spaces), an own valueFrom, an own JAVA_TOOL_OPTIONS with and without
// -Dhttp.nonProxyHosts (quoted).
func ownSettingsPods() []corev1.Pod {
	return []corev1.Pod{
		fixture.Pod("placeholders", "apps", nil, fixture.Ctr("scanner", fixture.Val("HTTP_PROXY", ""), fixture.Val("NO_PROXY", ""), fixture.Val("JAVA_TOOL_OPTIONS", ""))),
		fixture.Pod("twins", "apps", nil,
			fixture.Ctr("lower", fixture.Val("http_proxy", "http://own:8080"), fixture.Val("no_proxy", ".internal, sso.corp.internal")),
			fixture.Ctr("ref", fixture.ConfigMapRef("NO_PROXY", "proxy", "noProxy"), fixture.ConfigMapRef("HTTPS_PROXY", "proxy", "url"))),
		fixture.Pod("own-no-proxy", "apps", nil,
			fixture.Ctr("app", fixture.Val("TZ", "UTC"), fixture.Val("NO_PROXY", ".internal,localhost"), fixture.Val("no_proxy", ""), fixture.Val("HTTP_PROXY", "http://own:8080"))),
		fixture.Pod("own-java", "apps", nil,
			fixture.Ctr("hosts", fixture.Val("JAVA_TOOL_OPTIONS", `-Xmx64m -Dhttp.nonProxyHosts="*.internal|localhost"`)),
			fixture.Ctr("plain", fixture.Val("JAVA_TOOL_OPTIONS", "-Xmx64m"))),
		// entries that send public hosts around the proxy, or hold a password: a merge drops them
		fixture.Pod("wide", "apps", nil,
			fixture.Ctr("entries", fixture.Val("NO_PROXY", "localhost, *,.com,0.0.0.0/0,::/0,co.uk:443,.corp.example,http://u:p@proxy.corp:8080,10.0.0.0/8,1.0.0.0/7,fd00::/8,2000::/3,*.app,github.io,::ffff:0:0/96,..io,foo.ck,www.ck,CO.UK.")),
			fixture.Ctr("twin", fixture.Val("no_proxy", "*,.internal")),
			fixture.Ctr("jvm", fixture.Val("JAVA_TOOL_OPTIONS", "-Dhttp.nonProxyHosts=*|*.com|1*|10.*|*.corp.example|*co.uk -Xss1m")),
			fixture.Ctr("empties", fixture.Val("JAVA_TOOL_OPTIONS", "-Dhttp.nonProxyHosts=*.internal||localhost|"))),
		// the JVM's flags where they beat JAVA_TOOL_OPTIONS: Keycloak's JAVA_OPTS_APPEND and the others
		fixture.Pod("java-options", "apps", nil,
			fixture.Ctr("keycloak", fixture.Val("JAVA_OPTS_APPEND", "-Xms1g -Dhttp.nonProxyHosts=*.internal|*|"), fixture.Val("JDK_JAVA_OPTIONS", "-Dhttps.proxyHost=old -Dhttps.proxyPort=1")),
			fixture.Ctr("quoted", fixture.Val("JAVA_OPTS", `-Dhttp.nonProxyHosts="*.internal|localhost" -Xss1m`), fixture.Val("_JAVA_OPTIONS", "")),
			fixture.Ctr("plain", fixture.Val("JAVA_OPTS", "-Xmx1g"), fixture.Val("_JAVA_OPTIONS", "-Dhttp.nonProxyHosts=*.internal|localhost|*.com")),
			fixture.Ctr("from-config", fixture.ConfigMapRef("JAVA_OPTS", "jvm", "options"))),
	}
}

// TestOwnSettingsAreOneBehaviour is the differential test of the rules for a
// container's own settings: Kyverno's MutatingPolicy (the native policy's CEL
// body) and the ClusterPolicy, each through the Kyverno CLI (which applies their
// JSON patches exactly as the API server does), and proxykit inject give every
// container of ownSettingsPods what inject.MergeEnv writes out, for every
// combination of policy.overrideExisting and policy.mergeNoProxy. The native
// policy itself runs in the API server: the CLI does not give a
// MutatingAdmissionPolicy its variables, which the merge reads, so the
// admission matrix admits ownSettingsPods with every engine, merged (the
// default) and kept.
func TestOwnSettingsAreOneBehaviour(t *testing.T) {
	harness.Parallel(t)
	pods := ownSettingsPods()
	for _, r := range []inject.MergeOptions{{}, {MergeNoProxy: true}, {Override: true}, {Override: true, MergeNoProxy: true}} {
		name := "keep"
		switch {
		case r.Override && r.MergeNoProxy:
			name = "override+merge"
		case r.Override:
			name = "override"
		case r.MergeNoProxy:
			name = "merge"
		}
		t.Run(name, func(t *testing.T) {
			values := strings.Replace(fixture.PolicyValuesPlain, "proxy:\n", "proxy:\n  runtimes: [java]\n", 1) +
				"policy: {overrideExisting: " + yesNo(r.Override) + ", mergeNoProxy: " + yesNo(r.MergeNoProxy) + "}\n"
			var parsed map[string]any
			require.NoError(t, yaml.Unmarshal([]byte(values), &parsed))
			flags := fixture.Include(t, parsed, proxykit.Call{Helper: "proxykit.java.options"})
			want := append(append([]corev1.EnvVar{}, fixture.PolicyProxyEnv...), fixture.Val("JAVA_TOOL_OPTIONS", flags))

			mutatingPolicy := fixture.Find(t, fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(values)), "MutatingPolicy", "inject-proxy-env").Raw
			clusterPolicy := fixture.Find(t, fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(values+fixture.ClusterPolicyKind)), "ClusterPolicy", "inject-proxy-env").Raw
			engines := map[string]map[string]corev1.Pod{
				"MutatingPolicy": kyvernoApplyPolicy(t, []byte(mutatingPolicy), pods),
				"ClusterPolicy":  kyvernoApplyPolicy(t, []byte(clusterPolicy), pods),
				"inject":         injectPods(t, parsed, pods),
			}
			for _, pod := range pods {
				for key, c := range fixture.Containers(pod) {
					expected := fixture.ExpectedEnv(c, want, r)
					for engine, got := range engines {
						assert.Equal(t, expected, fixture.ContainerEnvs(got[pod.Name])[key], "%s: %s %s", engine, pod.Name, key)
					}
				}
			}
		})
	}
}

func yesNo(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// injectPods runs Pods through inject.Stream with values.
func injectPods(t *testing.T, values map[string]any, pods []corev1.Pod) map[string]corev1.Pod {
	t.Helper()
	var docs []string
	for _, p := range pods {
		b, err := yaml.Marshal(p)
		require.NoError(t, err)
		docs = append(docs, string(b))
	}
	out, _, err := inject.Stream([]byte(strings.Join(docs, "---\n")), inject.Options{Values: values})
	require.NoError(t, err)
	m, err := proxytest.Parse(string(out))
	require.NoError(t, err)
	result := map[string]corev1.Pod{}
	for _, p := range pods {
		var got corev1.Pod
		require.NoError(t, m.Decode("Pod", p.Name, &got))
		result[p.Name] = got
	}
	return result
}
