package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/manifest"
)

// injectOptions are the flags of `proxykit inject`.
type injectOptions struct {
	streams
	values    *valueFlags
	namespace string
	release   string
	quiet     bool
	// failInOutput turns an error into a document Helm fails on (helmFailure):
	// Helm 4 shows no post-renderer plugin's standard error, and the plugin sets it.
	failInOutput bool
	file         string // "": standard input
}

func newInjectCmd(s streams) *cobra.Command {
	o := &injectOptions{streams: s}
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
		Args: oneFileArg,
		RunE: runE(o),
	}
	o.values = addValueFlags(cmd.Flags())
	cmd.Flags().StringVarP(&o.namespace, "namespace", "n", "", "the release namespace, where objects without one are (default $HELM_NAMESPACE)")
	cmd.Flags().StringVar(&o.release, "release", "", "the release name, which names the credentials Secret (default: the objects' app.kubernetes.io/instance label)")
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print no summary on standard error")
	cmd.Flags().BoolVar(&o.failInOutput, "fail-in-output", false, "on an error, write a document Helm fails to read, whose error names it, and exit 0 (Helm 4 shows no plugin's standard error; its plugin sets this)")
	return cmd
}

func (o *injectOptions) complete(_ *cobra.Command, args []string) error {
	o.file = fileArg(args)
	o.namespace = firstOf(o.namespace, os.Getenv("HELM_NAMESPACE"))
	return nil
}

func (o *injectOptions) validate() error { return nil }

func (o *injectOptions) run(context.Context) error {
	err := o.inject()
	if err == nil || !o.failInOutput {
		return err
	}
	// the message as main prints it, redacted the same way
	msg := manifest.RedactUserInfo(err.Error())
	fmt.Fprintf(o.ErrOut, "proxykit inject: %s\n", msg)
	doc, err := helmFailure("proxykit inject failed: " + msg)
	if err != nil {
		return err
	}
	_, err = o.Out.Write(doc)
	return err
}

// helmFailure is a document that makes Helm fail with msg in its error. Helm
// 4 runs a post-renderer plugin with its standard error in a buffer it never
// shows ("plugin exited with error"), and drops the output of one that exits
// non-zero; but it names a document it cannot read by the file its
// postrenderer.helm.sh/postrender-filename annotation gives, and no Kubernetes
// object has a list for its kind. Helm 4.3 prints:
//
//	Error: YAML parse error on proxykit inject failed: ...: error unmarshaling JSON: ...
func helmFailure(msg string) ([]byte, error) {
	return yaml.Marshal(map[string]any{
		"apiVersion": "v1",
		"kind":       []string{"ProxykitInjectFailed"},
		"metadata": map[string]any{
			"name":        "proxykit-inject-failed",
			"annotations": map[string]string{"postrenderer.helm.sh/postrender-filename": msg},
		},
	})
}

// inject is the command's work: the stream, injected, on standard output.
func (o *injectOptions) inject() error {
	// one stream, then the process ends: collect garbage a third as often (a
	// quarter of the time on 1,000 Deployments), for twice the heap at most
	defer debug.SetGCPercent(debug.SetGCPercent(300))
	text, err := readManifests(o.file, o.In)
	if err != nil {
		return err
	}
	vals, err := o.values.merged()
	if err != nil {
		return err
	}
	out, result, err := inject.Stream(text, inject.Options{Values: vals, Namespace: o.namespace, Release: o.release})
	if err != nil {
		return usagef("%v", flagError(err))
	}
	if _, err := o.Out.Write(out); err != nil {
		return err
	}
	if !o.quiet {
		fmt.Fprintf(o.ErrOut, "proxykit inject: %d containers, %d Services in NO_PROXY, %d Secrets added\n", result.Containers, len(result.Services), len(result.Secrets))
		if len(result.Called) > 0 {
			fmt.Fprintf(o.ErrOut, "proxykit inject: hosts the containers call, in NO_PROXY: %s\n", strings.Join(result.Called, ", "))
		}
		for _, note := range result.Notes {
			fmt.Fprintf(o.ErrOut, "proxykit inject: %s\n", note)
		}
	}
	return nil
}
