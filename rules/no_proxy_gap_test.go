package rules

import (
	"testing"
)

func TestRuleNoProxyGap(t *testing.T) {
	checkCases(t, []ruleCase{
		{"NO_PROXY without the service network and API server", pod(plainEnv("http://proxy:3128", "localhost,cluster.local,cluster.local.,svc,10.244.0.0/16,169.254.169.254,metadata.google.internal,168.63.129.16,169.254.170.23,fd00:ec2::254,[fd00:ec2::254],fd00:ec2::23,[fd00:ec2::23]"), ""),
			// kubernetes.default matches no entry before [fd00:ec2::254], where fabric8 would
			// throw; but no JVM runs here, so no fabric8 to judge
			[]string{RuleNoProxyGap}},
	})
}
