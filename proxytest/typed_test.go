package proxytest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
)

func TestTypedAccess(t *testing.T) {
	m := Render(t, "testdata/platform", Values(`proxy: {http: "http://proxy.corp.example:3128"}`), Release("shop", "apps"))

	d := Get[appsv1.Deployment](t, m, "shop-api")
	assert.Equal(t, " envoy , metrics", d.Spec.Template.Annotations[AnnotationSkipContainers])
	cj := Get[batchv1.CronJob](t, m, "shop-report")
	assert.Equal(t, "0 3 * * *", cj.Spec.Schedule)

	api := m.Container(t, "Deployment/shop-api", "api")
	assert.Equal(t, "containers", api.List)
	assert.Equal(t, "HTTP_PROXY", api.Env[0].Name)
	assert.Equal(t, "http://proxy.corp.example:3128", m.Environment(api)["http_proxy"])
	assert.Contains(t, m.Environment(api)["NO_PROXY"], ".corp.example")

	_, err := m.ContainerE("Deployment/shop-api", "nginx")
	assert.EqualError(t, err, `manifest: Deployment/shop-api has no container "nginx"; it has migrate, api, envoy`)
	_, err = m.ContainerE("Deployment/nope", "api")
	assert.EqualError(t, err, "manifest: Deployment/nope has no pod template in the manifests; have Deployment/shop-api, StatefulSet/shop-db, CronJob/shop-report")
	assert.EqualError(t, m.Decode("Service", "shop-api", &struct{}{}), "manifest: no Service/shop-api in the manifests; have Deployment/shop-api, StatefulSet/shop-db, CronJob/shop-report")

	typo, err := Parse("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replica: 2}\n")
	require.NoError(t, err)
	err = typo.Decode("Deployment", "d", &appsv1.Deployment{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown field "replica"`, "strict: a typo in a template is an error")
}

// Find builds its index on first use; tests that share one render call it in parallel.
