package main

import (
	"context"
	"fmt"

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
	kube      *genericclioptions.ConfigFlags
	values    *valueFlags
	all       bool
	namespace bool // -n given
	output    *choiceFlag
}

func newAuditCmd(s streams) *cobra.Command {
	o := &auditOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "audit [--kubeconfig F] [--context C] [-n NS | -A] [-f VALUES]... [-o text|json|policyreport|openreports]",
		Short: "check the Pods of a live cluster with check's rules (and stale-proxy-env when -f gives the proxy)",
		Args:  noArgs,
		RunE:  runE(o),
	}
	o.kube = clusterFlags(cmd)
	cmd.Flags().BoolVarP(&o.all, "all-namespaces", "A", false, "every namespace but kube-system, kube-public and kube-node-lease")
	o.values = addValueFlags(cmd.Flags())
	o.output = addOutputFlag(cmd.Flags(), "text, json, policyreport (wgpolicyk8s.io, a report per namespace) or openreports (openreports.io, a report per Pod)",
		"text", "json", "policyreport", "openreports")
	return cmd
}

func (o *auditOptions) complete(cmd *cobra.Command, _ []string) error {
	o.namespace = cmd.Flags().Changed("namespace")
	return nil
}

func (o *auditOptions) validate() error {
	if err := o.output.validate(); err != nil {
		return err
	}
	if o.all && o.namespace {
		return usagef("-n and -A: name one namespace, or all")
	}
	return nil
}

func (o *auditOptions) run(ctx context.Context) error {
	vals, err := o.values.merged()
	if err != nil {
		return err
	}
	config, err := o.kube.ToRESTConfig()
	if err != nil {
		return usagef("%v", err)
	}
	opts := audit.Options{Values: vals}
	if !o.all {
		if opts.Namespace, _, err = o.kube.ToRawKubeConfigLoader().Namespace(); err != nil {
			return usagef("%v", err)
		}
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return usagef("%v", err)
	}
	if _, err := client.Discovery().ServerVersion(); err != nil {
		return usagef("%v at %s: %v", discover.ErrUnreachable, manifest.RedactUserInfo(config.Host), err)
	}
	facts, err := discover.ClusterFor(ctx, config, vals)
	if facts == nil {
		return usagef("%v", err)
	}
	for _, w := range facts.Warnings {
		fmt.Fprintf(o.ErrOut, "warning: %s\n", comment(w))
	}
	if err != nil {
		return usagef("%v; pass the cluster's values with -f", err)
	}
	opts.Cluster = facts.Cluster
	result, err := audit.Run(ctx, client, opts)
	if err != nil {
		return usagef("%v", err)
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
