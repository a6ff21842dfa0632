package main

import (
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
	kube   *genericclioptions.ConfigFlags
	values *valueFlags
	all    bool
	output *choiceFlag

	stdout, stderr io.Writer
}

func newAuditCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &auditOptions{stdout: stdout, stderr: stderr}
	cmd := &cobra.Command{
		Use:   "audit [--kubeconfig F] [--context C] [-n NS | -A] [-f VALUES]... [-o text|json|policyreport|openreports]",
		Short: "check the Pods of a live cluster with check's rules (and stale-proxy-env when -f gives the proxy)",
		Args:  noArgs,
	}
	o.kube = clusterFlags(cmd)
	cmd.Flags().BoolVarP(&o.all, "all-namespaces", "A", false, "every namespace but kube-system, kube-public and kube-node-lease")
	o.values = addValueFlags(cmd.Flags())
	o.output = addOutputFlag(cmd.Flags(), "text, json, policyreport (wgpolicyk8s.io, a report per namespace) or openreports (openreports.io, a report per Pod)",
		"text", "json", "policyreport", "openreports")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := o.validate(cmd); err != nil {
			return err
		}
		return o.run(cmd)
	}
	return cmd
}

func (o *auditOptions) validate(cmd *cobra.Command) error {
	if err := o.output.validate(); err != nil {
		return err
	}
	if o.all && cmd.Flags().Changed("namespace") {
		return usagef("-n and -A: name one namespace, or all")
	}
	return nil
}

func (o *auditOptions) run(cmd *cobra.Command) error {
	ctx := cmd.Context()
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
	// the cluster facts from the values when they name a network, else from discover
	if opts.Cluster, err = manifest.ClusterFromValues(vals); err != nil {
		return usagef("%v", err)
	}
	if len(opts.Cluster.PodCIDRs)+len(opts.Cluster.ServiceCIDRs) == 0 {
		res, err := discover.Discover(ctx, config, discover.Options{})
		if res == nil {
			return usagef("%v", err)
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(o.stderr, "warning: %s\n", comment(w))
		}
		if err != nil {
			return usagef("the values name no pod or service network and %v; pass the cluster's values with -f", err)
		}
		opts.Cluster = res.Cluster
	}
	result, err := audit.Run(ctx, client, opts)
	if err != nil {
		return usagef("%v", err)
	}
	switch o.output.value {
	case "json":
		err = audit.WriteJSON(o.stdout, result.Findings)
	case "policyreport":
		err = audit.WritePolicyReports(o.stdout, result.Findings)
	case "openreports":
		err = audit.WriteOpenReports(o.stdout, result.Findings)
	default:
		audit.WriteText(o.stdout, result)
	}
	if err != nil {
		return err
	}
	if len(result.Findings) > 0 {
		return errFindings
	}
	return nil
}
