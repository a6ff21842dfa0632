package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/noproxy"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// The fixture's containers: "init" gets (list init.env), "app" gets
// (list app.env app.extraEnv), "sidecar" gets (list sidecar.env) with "proxy" false.
func TestGenerateEnv(t *testing.T) {
	cases := []struct {
		name   string
		values string
		want   map[string][]corev1.EnvVar // container -> env; nil means no env key at all
	}{
		{
			name:   "no proxy and no env renders no env key",
			values: ``,
			want:   map[string][]corev1.EnvVar{"init": nil, "app": nil, "sidecar": nil},
		},
		{
			name:   "proxy tier alone, both cases, sidecar opted out",
			values: fixture.PlainProxy,
			want:   map[string][]corev1.EnvVar{"init": fixture.ProxyEnvPlain, "app": fixture.ProxyEnvPlain, "sidecar": nil},
		},
		{
			name: "lowercase false drops the twins",
			values: `
proxy:
  http: http://proxy.corp:3128
  https: http://proxy.corp:3129
  lowercase: false
cluster:
  podCIDRs: [10.244.0.0/16]
  serviceCIDRs: [10.96.0.0/12]
  apiServer: 10.96.0.1
`,
			want: map[string][]corev1.EnvVar{"app": fixture.ProxyEnvPlain[:3]},
		},
		{
			name: "defaults.env reaches every container, after the proxy tier",
			values: fixture.PlainProxy + `
defaults:
  env:
    - {name: TZ, value: UTC}
`,
			want: map[string][]corev1.EnvVar{
				"init":    fixture.WithEnv(fixture.ProxyEnvPlain, fixture.Val("TZ", "UTC")),
				"app":     fixture.WithEnv(fixture.ProxyEnvPlain, fixture.Val("TZ", "UTC")),
				"sidecar": {fixture.Val("TZ", "UTC")},
			},
		},
		{
			name: "defaults.env replaces a proxy variable in place",
			values: fixture.PlainProxy + `
defaults:
  env:
    - {name: TZ, value: UTC}
    - {name: HTTPS_PROXY, value: "http://other:8080"}
`,
			want: map[string][]corev1.EnvVar{"app": {
				fixture.Val("HTTP_PROXY", "http://proxy.corp:3128"),
				fixture.Val("HTTPS_PROXY", "http://other:8080"),
				fixture.Val("NO_PROXY", fixture.NoProxyPlain),
				fixture.Val("http_proxy", "http://proxy.corp:3128"),
				fixture.Val("https_proxy", "http://proxy.corp:3129"),
				fixture.Val("no_proxy", fixture.NoProxyPlain),
				fixture.Val("TZ", "UTC"),
			}},
		},
		{
			name: "later sources win and keep the first position",
			values: `
defaults:
  env:
    - {name: A, value: from-defaults}
    - {name: B, value: from-defaults}
app:
  env:
    - {name: C, value: from-env}
    - {name: A, value: from-env}
  extraEnv:
    - {name: B, value: from-extra}
    - {name: A, value: from-extra}
    - {name: D, value: from-extra}
`,
			want: map[string][]corev1.EnvVar{"app": {
				fixture.Val("A", "from-extra"), fixture.Val("B", "from-extra"), fixture.Val("C", "from-env"), fixture.Val("D", "from-extra"),
			}},
		},
		{
			name: "an entry replaces the earlier one whole: value and valueFrom never mix",
			values: `
defaults:
  env:
    - {name: POD, value: fixed}
    - name: NODE
      valueFrom: {fieldRef: {fieldPath: spec.nodeName}}
app:
  env:
    - name: POD
      valueFrom: {fieldRef: {fieldPath: metadata.name}}
    - {name: NODE, value: pinned}
`,
			want: map[string][]corev1.EnvVar{"app": {
				fixture.FieldRef("POD", "metadata.name"), fixture.Val("NODE", "pinned"),
			}},
		},
		{
			name: "value null removes a name from any tier, proxy tier included",
			values: fixture.PlainProxy + `
defaults:
  env:
    - {name: KEEP, value: "1"}
    - {name: DROP, value: "1"}
app:
  env:
    - {name: DROP, value: null}
    - {name: no_proxy, value: null}
    - {name: https_proxy, value: ~}
    - {name: http_proxy}
`,
			want: map[string][]corev1.EnvVar{"app": {
				fixture.Val("HTTP_PROXY", "http://proxy.corp:3128"),
				fixture.Val("HTTPS_PROXY", "http://proxy.corp:3129"),
				fixture.Val("NO_PROXY", fixture.NoProxyPlain),
				fixture.Val("http_proxy", ""),
				fixture.Val("KEEP", "1"),
			}},
		},
		{
			name: "a removed name added again returns to its first position",
			values: `
defaults:
  env:
    - {name: A, value: "1"}
    - {name: B, value: "2"}
app:
  env:
    - {name: A, value: null}
  extraEnv:
    - {name: A, value: back}
`,
			want: map[string][]corev1.EnvVar{"app": {fixture.Val("A", "back"), fixture.Val("B", "2")}},
		},
		{
			name: "removing every entry renders no env key",
			values: `
app:
  env:
    - {name: A, value: "1"}
  extraEnv:
    - {name: A, value: null}
`,
			want: map[string][]corev1.EnvVar{"app": nil},
		},
		{
			name: "numbers and booleans become strings",
			values: `
app:
  env:
    - {name: PORT, value: 8080}
    - {name: BIG, value: 1000000}
    - {name: RATIO, value: 0.25}
    - {name: NEGATIVE, value: -3}
    - {name: DEBUG, value: true}
    - {name: QUIET, value: false}
    - {name: QUOTED, value: "0123"}
`,
			want: map[string][]corev1.EnvVar{"app": {
				fixture.Val("PORT", "8080"), fixture.Val("BIG", "1000000"), fixture.Val("RATIO", "0.25"), fixture.Val("NEGATIVE", "-3"),
				fixture.Val("DEBUG", "true"), fixture.Val("QUIET", "false"), fixture.Val("QUOTED", "0123"),
			}},
		},
		{
			name: "valueFrom is kept as written",
			values: `
app:
  env:
    - name: TOKEN
      valueFrom:
        secretKeyRef: {name: api, key: token, optional: true}
    - name: LIMIT
      valueFrom:
        resourceFieldRef: {containerName: app, resource: limits.memory, divisor: 1Mi}
`,
			want: map[string][]corev1.EnvVar{"app": {
				{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "api"}, Key: "token", Optional: boolPtr(true)}}},
				{Name: "LIMIT", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{
					ContainerName: "app", Resource: "limits.memory", Divisor: mustQuantity("1Mi")}}},
			}},
		},
		{
			name: "nil sources and nil entries are skipped",
			values: `
defaults:
  env: null
app:
  env:
    - null
    - {name: A, value: a}
    - ~
  extraEnv: null
`,
			want: map[string][]corev1.EnvVar{"app": {fixture.Val("A", "a")}},
		},
		{
			name: "an entry without value is an empty variable",
			values: `
app:
  env:
    - {name: EMPTY}
    - {name: BLANK, value: ""}
`,
			want: map[string][]corev1.EnvVar{"app": {fixture.Val("EMPTY", ""), fixture.Val("BLANK", "")}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := fixture.Render(t, fixture.Fixture, proxytest.Values(tc.values))
			spec := proxytest.Get[appsv1.Deployment](t, r, fixture.Release+"-app").Spec.Template.Spec
			for name, want := range tc.want {
				got := fixture.SpecContainer(t, spec, name).Env
				assert.Equal(t, want, got, "env of container %q", name)
			}
			if env, ok := tc.want["sidecar"]; ok && env == nil {
				// "nothing at all": not even an empty env key in the text
				assert.NotRegexp(t, `(?m)^\s+env:`, sidecarText(r))
			}
		})
	}
}

func TestGenerateEnvProxyTierComesFromTheLibraryOnly(t *testing.T) {
	// the sidecar passes "proxy" false: defaults and its own source remain, in order
	r := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy+`
defaults:
  env: [{name: TZ, value: UTC}]
sidecar:
  env: [{name: HTTP_PROXY, value: "http://sidecar-only:1"}]
`))

	spec := proxytest.Get[appsv1.Deployment](t, r, fixture.Release+"-app").Spec.Template.Spec
	assert.Equal(t, []corev1.EnvVar{fixture.Val("TZ", "UTC"), fixture.Val("HTTP_PROXY", "http://sidecar-only:1")}, fixture.SpecContainer(t, spec, "sidecar").Env)
}

func TestGenerateEnvRejectsSourcesOfTheWrongShape(t *testing.T) {
	// one EnvVar map where a list of lists is expected is a common slip
	err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(`
app:
  env: {name: A, value: a}
`))

	assert.Contains(t, err, `"env" item 1 is a single entry; pass a list of EnvVar lists`)
	require.NotContains(t, err, "wrong type")
}

// sidecarText is the deployment text from the sidecar container on.
func sidecarText(r *proxytest.Manifests) string {
	text := fixture.SourceText(r, "templates/deployment.yaml")
	return text[strings.Index(text, "name: sidecar"):]
}

// Names the API server accepts pass: printable ASCII other than "=", quotes and
// backslashes included (they take generateEnv's slower check).
func TestGenerateEnvAcceptsEveryNameKubernetesDoes(t *testing.T) {
	for _, name := range []string{"A.B-c_1", "lower", `quo"te`, `back\slash`, "with space", "~!@#$%^&*()"} {
		r := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.ValuesYAML(t, map[string]any{"app": map[string]any{"env": []any{map[string]any{"name": name, "value": "v"}}}})))
		env := r.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env
		assert.Equal(t, name, env[len(env)-1].Name)
	}
}

// TestGenerateEnvJavaToolOptions: with proxy.runtimes java, a container's own
// JAVA_TOOL_OPTIONS is kept after the proxy flags (the JVM keeps the last of two
// -D flags, so its own win); one from valueFrom cannot be joined and fails.
func TestGenerateEnvJavaToolOptions(t *testing.T) {
	values := plainWith("runtimes: [java]") + `
defaults:
  env:
    - {name: JAVA_TOOL_OPTIONS, value: "-Xss1m"}
app:
  env:
    - {name: JAVA_TOOL_OPTIONS, value: "-Xmx1g -Dhttp.proxyPort=8080"}
init:
  env:
    - {name: JAVA_TOOL_OPTIONS, value: null}
sidecar:
  env:
    - {name: JAVA_TOOL_OPTIONS, value: "-Xmx64m"}
`
	r := fixture.Render(t, fixture.Fixture, proxytest.Values(values))
	spec := proxytest.Get[appsv1.Deployment](t, r, fixture.Release+"-app").Spec.Template.Spec
	app := fixture.SpecContainer(t, spec, "app").Env
	own := javaEnv(t, app)
	require.True(t, strings.HasPrefix(own, "-Dhttp.proxyHost=proxy.corp "), own)
	assert.True(t, strings.HasSuffix(own, " -Xmx1g -Dhttp.proxyPort=8080"), "the app's own options replace defaults.env's and follow the flags: %s", own)
	assert.NotContains(t, own, "-Xss1m")
	assert.Equal(t, "JAVA_TOOL_OPTIONS", app[6].Name, "at the proxy tier's position")
	assert.Empty(t, javaEnv(t, fixture.SpecContainer(t, spec, "init").Env), "value: null removes it")
	assert.Equal(t, []corev1.EnvVar{fixture.Val("JAVA_TOOL_OPTIONS", "-Xmx64m")}, fixture.SpecContainer(t, spec, "sidecar").Env,
		`with "proxy" false nothing is joined`)

	d, err := noproxy.Decide(noproxy.Java, "http://10.96.0.1", noproxy.Env(map[string]string{"JAVA_TOOL_OPTIONS": own}))
	require.NoError(t, err)
	assert.True(t, d.Direct, "the joined value keeps the JVM's nonProxyHosts")

	fixture.AssertFailsNaming(t, fixture.Fixture, plainWith("runtimes: [java]")+`
app:
  env:
    - name: JAVA_TOOL_OPTIONS
      valueFrom: {configMapKeyRef: {name: jvm, key: options}}
`, "env source 1[0] (JAVA_TOOL_OPTIONS) comes from valueFrom", "remove java from proxy.runtimes")
}

// A proxy URL with user-info in a plain env value would write the password into
// the Deployment: the render fails naming the entry, never showing the URL.
func TestGenerateEnvRefusesCredentialsInPlainValues(t *testing.T) {
	for _, c := range []struct{ values, want string }{
		{"defaults:\n  env: [{name: HTTP_PROXY, value: \"http://svc-user:Zq-secret@proxy.corp:3128\"}]\n", "defaults.env[0] (HTTP_PROXY)"},
		{"app:\n  env: [{name: TZ, value: UTC}, {name: https_proxy, value: \"http://svc-user:Zq-secret@proxy.corp:3128\"}]\n", "env source 1[1] (https_proxy)"},
		{"app:\n  extraEnv: [{name: npm_config_proxy, value: \"socks5://svc-user:Zq-secret@proxy.corp:1080\"}]\n", "env source 2[0] (npm_config_proxy)"},
	} {
		err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy+c.values))
		assert.Contains(t, err, c.want)
		assert.Contains(t, err, "proxy.existingSecret")
		assert.NotContains(t, err, "Zq-secret")
		assert.NotContains(t, err, "svc-user")
	}
	// a URL without user-info, or a credential that is not a proxy's, is the chart's business
	m := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy+"app:\n  env: [{name: HTTP_PROXY, value: \"http://own:8080\"}, {name: DATABASE_URL, value: \"postgres://app:pw@db:5432/app\"}]\n"))
	env := fixture.EnvMap(m.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env)
	assert.Equal(t, "http://own:8080", env["HTTP_PROXY"].Value)
	assert.Equal(t, "postgres://app:pw@db:5432/app", env["DATABASE_URL"].Value)
}

// A values file reads numbers as float64, exact only up to 2^53: a larger one has
// lost digits before the template sees it, so the render fails and says to quote it.
func TestGenerateEnvRefusesNumbersPast2To53(t *testing.T) {
	err := fixture.RenderError(t, fixture.Fixture, proxytest.Values("defaults:\n  env: [{name: ID, value: 123456789012345678}]\n"))
	assert.Contains(t, err, "defaults.env[0] (ID)")
	assert.Contains(t, err, "quote it")
	m := fixture.Render(t, fixture.Fixture, proxytest.Values("defaults:\n  env: [{name: ID, value: 9007199254740991}, {name: QUOTED, value: \"123456789012345678\"}, {name: NEG, value: -42}]\n"))
	env := fixture.EnvMap(m.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env)
	assert.Equal(t, "9007199254740991", env["ID"].Value, "2^53-1 is carried exactly")
	assert.Equal(t, "123456789012345678", env["QUOTED"].Value)
	assert.Equal(t, "-42", env["NEG"].Value)
}
