package audit

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/proxykit/proxykit/rules"
)

// RestartAnnotation is what `kubectl rollout restart` sets on a pod template:
// a new value rolls the owner's Pods out, and nothing else of it changes.
const RestartAnnotation = "kubectl.kubernetes.io/restartedAt"

// RolloutRules are the findings a rollout fixes: Pods that run on an old proxy
// configuration, and Pods admitted without the proxy.
var RolloutRules = []string{rules.RuleStaleProxyEnv, rules.RuleMissingProxyEnv}

// restartable are the owners whose Pods a new template rolls out.
var restartable = []string{"Deployment", "StatefulSet", "DaemonSet"}

// RolloutOptions say how to roll out the owners of an audit's findings.
type RolloutOptions struct {
	// Apply restarts the owners; without it Rollout only plans.
	Apply bool
	// MaxOwners is how many owners restart at a time (default 1): each batch is
	// ready before the next starts.
	MaxOwners int
	// Timeout bounds the wait for one batch (default 5 minutes).
	Timeout time.Duration
	// Now stamps the restart (default time.Now).
	Now func() time.Time
	// Progress, when set, hears each owner as it restarts and becomes ready.
	Progress func(owner Owner, event string)
}

// Owner is a workload that owns Pods with findings.
type Owner struct {
	Namespace, Kind, Name string
	Pods                  int      // its Pods with a finding of RolloutRules
	Rules                 []string // those findings' rules
}

func (o Owner) String() string { return o.Namespace + "/" + o.Kind + "/" + o.Name }

// RolloutPlan is what Rollout did, or would do.
type RolloutPlan struct {
	// Restart are the Deployments, StatefulSets and DaemonSets to restart (restarted with Apply).
	Restart []Owner
	// Listed are the owners a rollout cannot restart (a bare Pod, a Job, a
	// ReplicaSet without a Deployment): listed, never deleted.
	Listed []Owner
}

// Plan gathers the owners of the findings of RolloutRules, sorted by namespace,
// kind and name.
func Plan(findings []Finding) *RolloutPlan {
	byOwner := map[string]*Owner{}
	var keys []string
	pods := map[string]map[string]bool{}
	for _, f := range findings {
		if !slices.Contains(RolloutRules, f.Rule) {
			continue
		}
		kind, name, ok := strings.Cut(f.Owner, "/")
		if !ok || !strings.HasPrefix(f.Object, "Pod/") {
			continue
		}
		key := f.Namespace + "/" + f.Owner
		o, seen := byOwner[key]
		if !seen {
			o = &Owner{Namespace: f.Namespace, Kind: kind, Name: name}
			byOwner[key] = o
			keys = append(keys, key)
			pods[key] = map[string]bool{}
		}
		if !pods[key][f.Object] {
			pods[key][f.Object] = true
			o.Pods++
		}
		if !slices.Contains(o.Rules, f.Rule) {
			o.Rules = append(o.Rules, f.Rule)
		}
	}
	slices.Sort(keys)
	plan := &RolloutPlan{}
	for _, k := range keys {
		o := *byOwner[k]
		if slices.Contains(restartable, o.Kind) {
			plan.Restart = append(plan.Restart, o)
		} else {
			plan.Listed = append(plan.Listed, o)
		}
	}
	return plan
}

// Rollout restarts the owners of plan.Restart as `kubectl rollout restart` does
// (the pod template's RestartAnnotation), opts.MaxOwners at a time, each batch
// ready before the next, when opts.Apply; it returns at the first owner that
// fails or does not become ready in time, naming it.
func Rollout(ctx context.Context, client kubernetes.Interface, plan *RolloutPlan, opts RolloutOptions) error {
	if !opts.Apply {
		return nil
	}
	if opts.MaxOwners < 1 {
		opts.MaxOwners = 1
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	progress := func(o Owner, event string) {
		if opts.Progress != nil {
			opts.Progress(o, event)
		}
	}
	for batch := range slices.Chunk(plan.Restart, opts.MaxOwners) {
		stamp := opts.Now().UTC().Format(time.RFC3339)
		patch := fmt.Appendf(nil, `{"spec":{"template":{"metadata":{"annotations":{%q:%q}}}}}`, RestartAnnotation, stamp)
		for _, o := range batch {
			if err := restart(ctx, client, o, patch); err != nil {
				return fmt.Errorf("restart %s: %w", o, err)
			}
			progress(o, "restarted")
		}
		for _, o := range batch {
			if err := waitReady(ctx, client, o, opts.Timeout); err != nil {
				return fmt.Errorf("%s did not become ready: %w", o, err)
			}
			progress(o, "ready")
		}
	}
	return nil
}

func restart(ctx context.Context, client kubernetes.Interface, o Owner, patch []byte) error {
	apps := client.AppsV1()
	var err error
	switch o.Kind {
	case "Deployment":
		_, err = apps.Deployments(o.Namespace).Patch(ctx, o.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	case "StatefulSet":
		_, err = apps.StatefulSets(o.Namespace).Patch(ctx, o.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	case "DaemonSet":
		_, err = apps.DaemonSets(o.Namespace).Patch(ctx, o.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	default:
		err = fmt.Errorf("a %s is not restarted", o.Kind)
	}
	return err
}

// waitReady waits until the owner's controller has rolled the new template out
// to every replica, as `kubectl rollout status` judges it.
func waitReady(ctx context.Context, client kubernetes.Interface, o Owner, timeout time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		apps := client.AppsV1()
		switch o.Kind {
		case "Deployment":
			d, err := apps.Deployments(o.Namespace).Get(ctx, o.Name, metav1.GetOptions{})
			return err == nil && deploymentReady(d), err
		case "StatefulSet":
			s, err := apps.StatefulSets(o.Namespace).Get(ctx, o.Name, metav1.GetOptions{})
			return err == nil && statefulSetReady(s), err
		case "DaemonSet":
			d, err := apps.DaemonSets(o.Namespace).Get(ctx, o.Name, metav1.GetOptions{})
			return err == nil && daemonSetReady(d), err
		}
		return false, fmt.Errorf("a %s is not restarted", o.Kind)
	})
}

func deploymentReady(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == want && s.Replicas == want && s.AvailableReplicas == want
}

func statefulSetReady(sts *appsv1.StatefulSet) bool {
	want := int32(1)
	if sts.Spec.Replicas != nil {
		want = *sts.Spec.Replicas
	}
	s := sts.Status
	return s.ObservedGeneration >= sts.Generation && s.UpdatedReplicas == want && s.ReadyReplicas == want && s.UpdateRevision == s.CurrentRevision
}

func daemonSetReady(d *appsv1.DaemonSet) bool {
	s := d.Status
	return s.ObservedGeneration >= d.Generation && s.UpdatedNumberScheduled == s.DesiredNumberScheduled && s.NumberAvailable == s.DesiredNumberScheduled
}
