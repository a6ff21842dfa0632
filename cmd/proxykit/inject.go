package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/proxykit/proxykit/inject"
)

// injectOptions are the flags of `proxykit inject`.
type injectOptions struct {
	values    *valueFlags
	namespace string
	release   string
	quiet     bool
	file      string // "" or "-": standard input

	stdin          io.Reader
	stdout, stderr io.Writer
}

func newInjectCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	o := &injectOptions{stdin: stdin, stdout: stdout, stderr: stderr}
	cmd := &cobra.Command{
		Use:   "inject [-f VALUES]... [--set K=V]... [-n NS] [--release NAME] [FILE|-]",
		Short: "the proxy injected into rendered manifests, as the policies inject it (a Helm post-renderer)",
		Long: "inject reads rendered manifests (FILE, or standard input) and writes them back with the proxy in every\n" +
			"container of every pod template, as proxy-policies' engines inject it at admission, and every Service of\n" +
			"the stream in NO_PROXY. Every other object is written back as it was; injecting twice equals injecting once.\n\n" +
			"As a Helm 3 post-renderer:\n" +
			"  helm install argocd argo/argo-cd -n argocd --post-renderer proxykit \\\n" +
			"    --post-renderer-args inject --post-renderer-args -f --post-renderer-args proxy-values.yaml \\\n" +
			"    --post-renderer-args -n --post-renderer-args argocd\n\n" +
			"Namespace of objects without one: -n, else $HELM_NAMESPACE. Release (names the credentials Secret): --release,\n" +
			"else the objects' app.kubernetes.io/instance label.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("takes one FILE (or - for standard input), got %d", len(args))
			}
			return nil
		},
	}
	o.values = addValueFlags(cmd.Flags())
	cmd.Flags().StringVarP(&o.namespace, "namespace", "n", "", "the release namespace, where objects without one are (default $HELM_NAMESPACE)")
	cmd.Flags().StringVar(&o.release, "release", "", "the release name, which names the credentials Secret (default: the objects' app.kubernetes.io/instance label)")
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print no summary on standard error")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		o.complete(args)
		return o.run()
	}
	return cmd
}

func (o *injectOptions) complete(args []string) {
	if len(args) == 1 {
		o.file = args[0]
	}
	if o.namespace == "" {
		o.namespace = os.Getenv("HELM_NAMESPACE")
	}
}

func (o *injectOptions) run() error {
	text, err := readManifests(o.file, o.stdin)
	if err != nil {
		return err
	}
	vals, err := o.values.merged()
	if err != nil {
		return err
	}
	out, result, err := inject.Stream(text, inject.Options{Values: vals, Namespace: o.namespace, Release: o.release})
	if err != nil {
		return usagef("%v", err)
	}
	if _, err := o.stdout.Write(out); err != nil {
		return err
	}
	if !o.quiet {
		fmt.Fprintf(o.stderr, "proxykit inject: %d containers, %d Services in NO_PROXY, %d Secrets added\n", result.Containers, len(result.Services), len(result.Secrets))
	}
	return nil
}
