package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
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
	write  bool
}

func newAuditCmd(s streams) *cobra.Command {
	o := &auditOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "audit [--kubeconfig F] [--context C] [-n NS | -A] [-l SELECTOR] [-f VALUES]... [-o text|json|policyreport|openreports [--write]]",
		Short: "check the Pods of a live cluster with check's rules and stale-proxy-env (the record each Pod started with)",
		Args:  noArgs,
		RunE:  runE(o),
	}
	o.live.addFlags(cmd)
	o.output = addOutputFlag(cmd.Flags(), "text, json, policyreport (wgpolicyk8s.io, a report per namespace) or openreports (openreports.io, a report per Pod)",
		"text", "json", "policyreport", "openreports")
	cmd.Flags().BoolVar(&o.write, "write", false, "with -o policyreport or openreports: apply the reports to the cluster (server-side) and delete the ones an earlier --write left that no finding holds now")
	return cmd
}

func (o *auditOptions) complete(cmd *cobra.Command, _ []string) error { return o.live.complete(cmd) }

func (o *auditOptions) validate() error {
	if err := o.output.validate(); err != nil {
		return err
	}
	if o.write && o.output.value != "policyreport" && o.output.value != "openreports" {
		return usagef("--write keeps reports in the cluster: add -o policyreport or -o openreports")
	}
	if o.write && o.live.selector != "" {
		return usagef("--write and -l: a report holds every Pod of its namespace, so --write audits them all; drop -l")
	}
	return o.live.validate()
}

func (o *auditOptions) run(ctx context.Context) error {
	result, _, err := o.live.run(ctx, o.ErrOut)
	if err != nil {
		return err
	}
	if o.write {
		return o.writeReports(ctx, result)
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

// writeReports keeps the reports in the cluster and says what changed.
func (o *auditOptions) writeReports(ctx context.Context, result *audit.Result) error {
	config, err := o.live.kube.ToRESTConfig()
	if err != nil {
		return usagef("%v", err)
	}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return usagef("%v", err)
	}
	written, err := audit.Write(ctx, client, audit.ReportFormat(o.output.value), o.live.auditedNamespace, result.Findings)
	if written != nil {
		for _, key := range written.Applied {
			fmt.Fprintf(o.Out, "applied %s\n", key)
		}
		for _, key := range written.Deleted {
			fmt.Fprintf(o.Out, "deleted %s\n", key)
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "%s, %d findings: %d reports applied, %d deleted\n", result.Checked(), len(result.Findings), len(written.Applied), len(written.Deleted))
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
	// auditedNamespace is the namespace run audited, "" for all
	auditedNamespace string
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
	for _, u := range result.Unread {
		fmt.Fprintf(errOut, "warning: not read: %s\n", u)
	}
	l.auditedNamespace = opts.Namespace
	return result, client, nil
}
