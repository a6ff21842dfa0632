// Package rules judges rendered or live manifests: does every container get
// the proxy, and does its NO_PROXY send every cluster destination around it?
//
// Check runs every rule over every container of a manifest.Manifests; a rule
// is a plain function of one container's Context, in a file of its own named
// after the rule (missing_proxy_env.go holds RuleMissingProxyEnv). `proxykit
// check`, `proxykit audit` and proxytest.AssertProxyReady all judge with it.
//
// To add a rule: a file with its constant and its function, a line in
// containerRules, a test file beside it, and a row in the README's rules table.
package rules
