package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proxykit/proxykit/audit"
)

// rolloutOptions are the flags of `proxykit rollout`, which restarts the owners
// of the Pods that audit finds on an old proxy configuration or without the proxy.
type rolloutOptions struct {
	streams
	live      liveAudit
	apply     bool
	maxOwners int
	timeout   time.Duration
}

func newRolloutCmd(s streams) *cobra.Command {
	o := &rolloutOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "rollout [--kubeconfig F] [--context C] [-n NS | -A] [-l SELECTOR] [-f VALUES]... [--apply] [--max-owners N] [--timeout D]",
		Short: "restart the owners of Pods that run on an old proxy configuration, or without the proxy (a dry run unless --apply)",
		Long: "rollout audits the Pods as `proxykit audit` does and restarts the Deployments, StatefulSets and DaemonSets\n" +
			"whose Pods are stale-proxy-env or missing-proxy-env, as `kubectl rollout restart` does (the pod template's\n" +
			audit.RestartAnnotation + " annotation), --max-owners at a time, each ready before the next.\n" +
			"Bare Pods and Jobs are listed, never deleted. Without --apply it only prints what it would restart.",
		Args: noArgs,
		RunE: runE(o),
	}
	o.live.addFlags(cmd)
	cmd.Flags().BoolVar(&o.apply, "apply", false, "restart them (default: a dry run that prints the plan)")
	cmd.Flags().IntVar(&o.maxOwners, "max-owners", 1, "owners restarted at a time; each batch is ready before the next")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long one batch may take to become ready")
	return cmd
}

func (o *rolloutOptions) complete(cmd *cobra.Command, _ []string) error { return o.live.complete(cmd) }

func (o *rolloutOptions) validate() error {
	if o.maxOwners < 1 {
		return usagef("--max-owners: %d is not a number of owners (1 or more)", o.maxOwners)
	}
	if o.timeout <= 0 {
		return usagef("--timeout: %s is no time to wait", o.timeout)
	}
	return o.live.validate()
}

func (o *rolloutOptions) run(ctx context.Context) error {
	result, client, err := o.live.run(ctx, o.ErrOut)
	if err != nil {
		return err
	}
	plan := audit.Plan(result.Findings)
	verb := "would restart (a dry run: --apply restarts them)"
	if o.apply {
		verb = "restarting"
	}
	section := func(title string, owners []audit.Owner) {
		if len(owners) == 0 {
			return
		}
		fmt.Fprintf(o.Out, "%s:\n", title)
		for _, owner := range owners {
			fmt.Fprintf(o.Out, "  %s: %d %s (%s)\n", owner, owner.Pods, plural(owner.Pods, "Pod"), strings.Join(owner.Rules, ", "))
		}
	}
	section(verb, plan.Restart)
	section("listed, not restarted (a bare Pod or a Job: recreate it yourself)", plan.Listed)
	err = audit.Rollout(ctx, client, plan, audit.RolloutOptions{Apply: o.apply, MaxOwners: o.maxOwners, Timeout: o.timeout,
		Progress: func(owner audit.Owner, event string) { fmt.Fprintf(o.ErrOut, "%s %s\n", owner, event) }})
	if err != nil {
		return err
	}
	done := "to restart"
	if o.apply {
		done = "restarted"
	}
	fmt.Fprintf(o.Out, "%s, %d %s %s, %d listed\n", result.Checked(), len(plan.Restart), plural(len(plan.Restart), "owner"), done, len(plan.Listed))
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
