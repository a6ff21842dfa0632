package rules

import (
	"fmt"
	"strings"

	"github.com/proxykit/proxykit/manifest"
)

// RuleMissingProxyEnv: HTTP_PROXY, HTTPS_PROXY or NO_PROXY, or a lower-case twin, is absent.
const RuleMissingProxyEnv = "missing-proxy-env"

// missingProxyEnv lists the expected variables the container lacks, unless it opts out.
// A Helm hook's containers are hook-without-proxy's, once per object.
func missingProxyEnv(c *Context) string {
	missing := missingVariables(c.Env, c.Expected)
	if len(missing) == 0 || c.OptedOut() != "" || (c.Hook != "" && !c.Live) {
		return ""
	}
	fix := "call proxykit.generateEnv for it, or, if it must not use the proxy, name it in the pod template's " + manifest.AnnotationSkipContainers + " annotation"
	if c.Live {
		fix = fmt.Sprintf("the Pod was admitted without the proxy: created before proxy-policies, or in a namespace it leaves out. If the policy injects namespace %s now, `proxykit rollout --apply` restarts the Pod's owner; if not, add %s to the policy's scope (namespaces.include; with credentials and the native engine, native.secretNamespaces); if it must not use the proxy, annotate it %s: \"false\"",
			c.Namespace, c.Namespace, manifest.AnnotationInject)
	}
	if c.Manifests.ProxyOff {
		fix = "the proxy is off in the values this chart was rendered with (proxy.http and proxy.https, cluster.proxy.* and global.proxy.* are empty), so the library emits no proxy variable: set the proxy in the values you test with"
	}
	return fmt.Sprintf("%s %s not set%s; %s", strings.Join(missing, ", "), isAre(len(missing)), c.Where, fix)
}
