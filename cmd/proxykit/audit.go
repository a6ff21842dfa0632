package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/proxykit/proxykit/audit"
	"github.com/proxykit/proxykit/discover"
	"github.com/proxykit/proxykit/manifest"
)

// auditOptions are the flags of `proxykit audit`.
type auditOptions struct {
	streams
	live   liveAudit
	output *choiceFlag
}

func newAuditCmd(s streams) *cobra.Command {
	o := &auditOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "audit [--kubeconfig F] [--context C] [-n NS | -A] [-l SELECTOR] [-f VALUES]... [-o text|json|policyreport|openreports]",
		Short: "check the Pods of a live cluster with check's rules (and stale-proxy-env when -f gives the proxy)",
		Args:  noArgs,
		RunE:  runE(o),
	}
	o.live.addFlags(cmd)
	o.output = addOutputFlag(cmd.Flags(), "text, json, policyreport (wgpolicyk8s.io, a report per namespace) or openreports (openreports.io, a report per Pod)",
		"text", "json", "policyreport", "openreports")
	return cmd
}

func (o *auditOptions) complete(cmd *cobra.Command, _ []string) error { return o.live.complete(cmd) }

func (o *auditOptions) validate() error {
	if err := o.output.validate(); err != nil {
		return err
	}
	return o.live.validate()
}

func (o *auditOptions) run(ctx context.Context) error {
	result, _, err := o.live.run(ctx, o.ErrOut)
	if err != nil {
		return err
	}
	switch o.output.value {
	case "json":
		err = audit.WriteJSON(o.Out, result.Findings)
	case "policyreport":
		err = audit.WritePolicyReports(o.Out, result.Findings)
	case "openreports":
		err = audit.WriteOpenReports(o.Out, result.Findings)
	default:
		audit.WriteText(o.Out, result)
	}
	if err != nil {
		return err
	}
	if len(result.Findings) > 0 {
		return errFindings
	}
	return nil
}

// liveAudit are the flags of the commands that audit a live cluster (audit,
// rollout): kubectl's cluster flags, -A, -l, and the values.
type liveAudit struct {
	kube      *genericclioptions.ConfigFlags
	values    *valueFlags
	all       bool
	selector  string
	namespace bool // -n given
}

func (l *liveAudit) addFlags(cmd *cobra.Command) {
	l.kube = clusterFlags(cmd)
	cmd.Flags().BoolVarP(&l.all, "all-namespaces", "A", false, "every namespace but kube-system, kube-public and kube-node-lease")
	cmd.Flags().StringVarP(&l.selector, "selector", "l", "", "only the Pods with these labels (app=web,tier!=db), as kubectl -l")
	l.values = addValueFlags(cmd.Flags())
}

func (l *liveAudit) complete(cmd *cobra.Command) error {
	l.namespace = cmd.Flags().Changed("namespace")
	return nil
}

func (l *liveAudit) validate() error {
	if l.all && l.namespace {
		return usagef("-n and -A: name one namespace, or all")
	}
	return nil
}

// run audits the cluster: the facts from the values, else from discover (its
// warnings to errOut); the client is handed back for what follows (a rollout).
func (l *liveAudit) run(ctx context.Context, errOut io.Writer) (*audit.Result, kubernetes.Interface, error) {
	vals, err := l.values.merged()
	if err != nil {
		return nil, nil, err
	}
	config, err := l.kube.ToRESTConfig()
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	opts := audit.Options{Values: vals, Selector: l.selector}
	if !l.all {
		if opts.Namespace, _, err = l.kube.ToRawKubeConfigLoader().Namespace(); err != nil {
			return nil, nil, usagef("%v", err)
		}
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	if _, err := client.Discovery().ServerVersion(); err != nil {
		return nil, nil, usagef("%v at %s: %v", discover.ErrUnreachable, manifest.RedactUserInfo(config.Host), err)
	}
	facts, err := discover.ClusterFor(ctx, config, vals)
	if facts == nil {
		return nil, nil, usagef("%v", err)
	}
	for _, w := range facts.Warnings {
		fmt.Fprintf(errOut, "warning: %s\n", comment(w))
	}
	if err != nil {
		return nil, nil, usagef("%v; pass the cluster's values with -f", err)
	}
	opts.Cluster = facts.Cluster
	result, err := audit.Run(ctx, client, opts)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	return result, client, nil
}
