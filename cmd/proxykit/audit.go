package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/discover"
	"github.com/proxykit/proxykit/proxytest"
)

// systemNamespaces are skipped unless named with -n.
var systemNamespaces = []string{"kube-system", "kube-public", "kube-node-lease"}

// listOptions pages through namespace ("" for all); across all namespaces the API
// server leaves out the system ones, so their Pods and Secrets are never read.
func listOptions(namespace string) metav1.ListOptions {
	opts := metav1.ListOptions{Limit: auditPage}
	if namespace == "" {
		var skip []string
		for _, ns := range systemNamespaces {
			skip = append(skip, "metadata.namespace!="+ns)
		}
		opts.FieldSelector = strings.Join(skip, ",")
	}
	return opts
}

// auditPage is how many Pods one list request returns: Pods are checked a page at
// a time, so memory holds one page and the Secrets' and ConfigMaps' keys.
const auditPage = 500

// auditFinding is a Finding (which names the Pod's namespace) with the Pod's owner and UID.
type auditFinding struct {
	proxytest.Finding
	owner string
	uid   string
}

func newAuditCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit [--kubeconfig F] [--context C] [-n NS | -A] [-f VALUES]... [-o text|json|policyreport|openreports]",
		Short: "check the Pods of a live cluster with check's rules (and stale-proxy-env when -f gives the proxy)",
		Args:  noArgs,
	}
	kube := clusterFlags(cmd)
	all := cmd.Flags().BoolP("all-namespaces", "A", false, "every namespace but kube-system, kube-public and kube-node-lease")
	v := addValueFlags(cmd.Flags())
	output := cmd.Flags().StringP("output", "o", "text", "text, json, policyreport (wgpolicyk8s.io, a report per namespace) or openreports (openreports.io, a report per Pod)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if *output != "text" && *output != "json" && *output != "policyreport" && *output != "openreports" {
			return usagef("-o: %q is not one of text, json, policyreport, openreports", *output)
		}
		if *all && cmd.Flags().Changed("namespace") {
			return usagef("-n and -A: name one namespace, or all")
		}
		vals, err := v.merged()
		if err != nil {
			return err
		}
		config, err := kube.ToRESTConfig()
		if err != nil {
			return usagef("%v", err)
		}
		namespace := ""
		if !*all {
			if namespace, _, err = kube.ToRawKubeConfigLoader().Namespace(); err != nil {
				return usagef("%v", err)
			}
		}
		a := &auditor{ctx: cmd.Context(), stderr: stderr}
		if a.client, err = kubernetes.NewForConfig(config); err != nil {
			return usagef("%v", err)
		}
		if _, err := a.client.Discovery().ServerVersion(); err != nil {
			return usagef("%v at %s: %v", discover.ErrUnreachable, config.Host, err)
		}
		if err := a.facts(config, vals); err != nil {
			return err
		}
		findings, pods, err := a.run(namespace)
		if err != nil {
			return err
		}
		switch *output {
		case "json":
			err = writeAuditJSON(stdout, findings)
		case "policyreport":
			err = writePolicyReports(stdout, findings)
		case "openreports":
			err = writeOpenReports(stdout, findings)
		default:
			writeAuditText(stdout, findings, pods)
		}
		if err != nil {
			return err
		}
		if len(findings) > 0 {
			return errFindings
		}
		return nil
	}
	return cmd
}

// auditor holds what one audit reads once: the cluster facts, the variables
// the values render, and the Secrets' and ConfigMaps' keys.
type auditor struct {
	ctx       context.Context
	stderr    io.Writer
	client    kubernetes.Interface
	cluster   proxytest.Cluster
	variables []string
	want      map[string]string // for stale-proxy-env: name -> the value the values render
	owners    map[string]string // "namespace/ReplicaSet" -> "Deployment/name"
}

// facts takes the cluster facts from the values when they name a network, else
// from discover; with a proxy in the values, the variables it renders.
func (a *auditor) facts(config *rest.Config, vals map[string]any) error {
	cluster, err := proxytest.ClusterFromValues(vals)
	if err != nil {
		return usagef("%v", err)
	}
	if len(cluster.PodCIDRs)+len(cluster.ServiceCIDRs) == 0 {
		res, err := discover.Discover(a.ctx, config, discover.Options{})
		if res == nil {
			return usagef("%v", err)
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(a.stderr, "warning: %s\n", w)
		}
		if err != nil {
			return usagef("the values name no pod or service network and %v; pass the cluster's values with -f", err)
		}
		cluster = res.Cluster
	}
	a.cluster = cluster
	if a.variables, err = proxytest.VariablesFromValues(vals); err != nil {
		return usagef("%v", err)
	}
	if a.variables == nil { // the values set no proxy: expect the six, judge no staleness
		return nil
	}
	a.want, err = renderedEnv(vals)
	return err
}

// renderedEnv is what the library renders for the values, by name, values resolved:
// the URLs of the proxy config for the variables that read the Secret.
func renderedEnv(vals map[string]any) (map[string]string, error) {
	config, err := proxykit.Include("proxykit.proxy.config", vals)
	if err != nil {
		return nil, usagef("%v", err)
	}
	var resolved map[string]string
	if err := yaml.Unmarshal([]byte(config), &resolved); err != nil {
		return nil, err
	}
	envYAML, err := proxykit.Include("proxykit.proxy.env", vals)
	if err != nil {
		return nil, usagef("%v", err)
	}
	var env []corev1.EnvVar
	if err := yaml.Unmarshal([]byte(envYAML), &env); err != nil {
		return nil, err
	}
	key := map[string]string{"HTTP_PROXY": "http", "HTTPS_PROXY": "https", "NO_PROXY": "noProxy"}
	want := map[string]string{}
	for _, e := range env {
		if e.ValueFrom == nil {
			want[e.Name] = e.Value
		} else if k, ok := key[strings.ToUpper(e.Name)]; ok {
			want[e.Name] = resolved[k]
		}
	}
	return want, nil
}

// run checks the Pods of namespace ("" for all) a page at a time.
func (a *auditor) run(namespace string) ([]auditFinding, int, error) {
	sources, err := a.sources(namespace)
	if err != nil {
		return nil, 0, err
	}
	a.owners = map[string]string{}
	var findings []auditFinding
	pods := 0
	opts := listOptions(namespace)
	for {
		list, err := a.client.CoreV1().Pods(namespace).List(a.ctx, opts)
		if err != nil {
			return nil, 0, usagef("list Pods: %v", err)
		}
		var docs []any
		byName := map[string]corev1.Pod{}
		needed := map[string]bool{}
		for _, p := range list.Items {
			pods++
			p.APIVersion, p.Kind = "v1", "Pod"
			p.ManagedFields = nil
			docs = append(docs, p)
			byName[p.Namespace+"/"+p.Name] = p
			for _, ref := range podReferences(p) {
				needed[p.Namespace+"/"+ref] = true
			}
		}
		for ref := range needed {
			if obj, ok := sources[ref]; ok {
				docs = append(docs, obj)
			}
		}
		page, err := pageFindings(docs, a)
		if err != nil {
			return nil, 0, err
		}
		for _, f := range page {
			pod := byName[f.Namespace+"/"+strings.TrimPrefix(f.Object, "Pod/")]
			f.owner = a.owner(pod)
			f.uid = string(pod.UID)
			findings = append(findings, f)
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			break
		}
	}
	return findings, pods, nil
}

// pageFindings runs Check (and CheckStale) on one page of Pods with the objects they read.
func pageFindings(docs []any, a *auditor) ([]auditFinding, error) {
	m, err := proxytest.FromObjects(docs...)
	if err != nil {
		return nil, err
	}
	m.Variables = a.variables
	found := proxytest.Check(m, a.cluster)
	if a.want != nil {
		found = append(found, proxytest.CheckStale(m, a.want)...)
	}
	out := make([]auditFinding, 0, len(found))
	for _, f := range found {
		out = append(out, auditFinding{Finding: f})
	}
	return out, nil
}

// owner names the workload a Pod belongs to: a ReplicaSet's Deployment, else the
// Pod's controller, else the Pod. A ReplicaSet is read once, not once per Pod.
func (a *auditor) owner(p corev1.Pod) string {
	ref := metav1.GetControllerOf(&p)
	if ref == nil {
		return "Pod/" + p.Name
	}
	if ref.Kind != "ReplicaSet" {
		return ref.Kind + "/" + ref.Name
	}
	key := p.Namespace + "/" + ref.Name
	if o, ok := a.owners[key]; ok {
		return o
	}
	o := "ReplicaSet/" + ref.Name
	if rs, err := a.client.AppsV1().ReplicaSets(p.Namespace).Get(a.ctx, ref.Name, metav1.GetOptions{}); err == nil {
		if d := metav1.GetControllerOf(rs); d != nil {
			o = d.Kind + "/" + d.Name
		}
	}
	a.owners[key] = o
	return o
}

// sources reads the Secrets and ConfigMaps of namespace ("" for all), a page at
// a time, keyed "namespace/Kind/name". A Secret keeps its keys and only the
// values of NO_PROXY keys, which no-proxy-gap judges: no URL with credentials
// stays in memory.
func (a *auditor) sources(namespace string) (map[string]any, error) {
	out := map[string]any{}
	opts := listOptions(namespace)
	for {
		list, err := a.client.CoreV1().Secrets(namespace).List(a.ctx, opts)
		if err != nil {
			return nil, usagef("list Secrets (missing-secret needs their keys): %v", err)
		}
		for _, s := range list.Items {
			data := map[string][]byte{}
			for k, v := range s.Data {
				if strings.Contains(strings.ToUpper(k), "NO_PROXY") {
					data[k] = v
				} else {
					data[k] = nil
				}
			}
			out[s.Namespace+"/Secret/"+s.Name] = corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
				ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace}, Data: data}
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			break
		}
	}
	opts = listOptions(namespace)
	for {
		list, err := a.client.CoreV1().ConfigMaps(namespace).List(a.ctx, opts)
		if err != nil {
			return nil, usagef("list ConfigMaps (missing-secret needs their keys): %v", err)
		}
		for _, c := range list.Items {
			out[c.Namespace+"/ConfigMap/"+c.Name] = corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace}, Data: c.Data}
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			break
		}
	}
	return out, nil
}

// podReferences lists the Secrets and ConfigMaps a Pod's env reads, "Kind/name".
func podReferences(p corev1.Pod) []string {
	var refs []string
	visit := func(env []corev1.EnvVar, from []corev1.EnvFromSource) {
		for _, e := range env {
			if e.ValueFrom == nil {
				continue
			}
			if r := e.ValueFrom.SecretKeyRef; r != nil {
				refs = append(refs, "Secret/"+r.Name)
			}
			if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
				refs = append(refs, "ConfigMap/"+r.Name)
			}
		}
		for _, f := range from {
			if f.SecretRef != nil {
				refs = append(refs, "Secret/"+f.SecretRef.Name)
			}
			if f.ConfigMapRef != nil {
				refs = append(refs, "ConfigMap/"+f.ConfigMapRef.Name)
			}
		}
	}
	for _, c := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		visit(c.Env, c.EnvFrom)
	}
	for _, c := range p.Spec.EphemeralContainers {
		visit(c.Env, c.EnvFrom)
	}
	return refs
}

func writeAuditJSON(w io.Writer, findings []auditFinding) error {
	if findings == nil {
		findings = []auditFinding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(findings)
}

// writeAuditText groups findings by owner: the Pods of one Deployment share a line.
func writeAuditText(w io.Writer, findings []auditFinding, pods int) {
	type line struct{ namespace, owner, text string }
	podsOf := map[line][]string{}
	var order []line
	for _, f := range findings {
		where := f.Rule + ": " + f.Message
		if f.Container != "" {
			where = "container " + f.Container + ": " + where
		}
		l := line{f.Namespace, f.owner, where}
		if _, ok := podsOf[l]; !ok {
			order = append(order, l)
		}
		podsOf[l] = append(podsOf[l], strings.TrimPrefix(f.Object, "Pod/"))
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].namespace != order[j].namespace {
			return order[i].namespace < order[j].namespace
		}
		return order[i].owner < order[j].owner
	})
	last := ""
	for _, l := range order {
		if head := l.namespace + " " + l.owner; head != last {
			fmt.Fprintf(w, "%s/%s:\n", l.namespace, l.owner)
			last = head
		}
		fmt.Fprintf(w, "  %s (Pods: %s)\n", l.text, strings.Join(podsOf[l], ", "))
	}
	fmt.Fprintf(w, "%d Pods checked, %d findings\n", pods, len(findings))
}
