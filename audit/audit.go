// Package audit checks the Pods of a live cluster with package rules: what
// `proxykit audit` runs, for a Go program of your own (an operator, a report
// controller). It reads through a kubernetes.Interface, so a fake clientset
// serves its tests.
//
// missing-secret is judged against the Secrets and ConfigMaps that exist in
// each Pod's namespace. stale-proxy-env compares the record a Pod started with
// (its proxykit.io/proxy-config annotation) with the record of the Secret it
// reads, or of the values; a Pod without a record is compared by its variables
// with what the values render. Pods and ConfigMaps are listed a page at a
// time, with no request per Pod; a Secret is read (get) only when a Pod reads it.
package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/manifest"
	"github.com/proxykit/proxykit/rules"
)

// SystemNamespaces are left out of an audit of every namespace.
var SystemNamespaces = []string{"kube-system", "kube-public", "kube-node-lease"}

// PageSize is how many Pods one list request returns; each page is checked with
// the objects its Pods read, so memory holds one page and the Secrets' keys.
const PageSize = 500

// Options say what to audit.
type Options struct {
	// Namespace is the one to audit; "" audits every namespace but SystemNamespaces.
	Namespace string
	// Cluster holds the facts NO_PROXY must cover (from the values, or discover).
	Cluster cluster.Facts
	// Values are the library's values. With a proxy set, Check expects the
	// variables they render, and stale-proxy-env judges a Pod whose Secret
	// carries no record by the values' record (or, for a Pod without a record,
	// its variables); nil expects all six and judges only by Secrets' records.
	Values map[string]any
	// Selector narrows the Pods audited by their labels ("app=web"), as kubectl -l.
	Selector string
	// MaxSelectedData bounds, in bytes, the ConfigMaps selected by label that
	// the audit reads; 0 is MaxSelectedData.
	MaxSelectedData int
}

// Finding is a rules.Finding (its Namespace and Object "Pod/NAME" name the
// Pod) with the Pod's UID and owner.
type Finding struct {
	rules.Finding
	UID   string `json:"-"`
	Owner string `json:"-"` // "Deployment/web" for a ReplicaSet's Pod, the controller's kind/name, else "Pod/NAME"; the object itself for a ConfigMap
}

// Result is what Run found.
type Result struct {
	Findings []Finding
	Pods     int // Pods checked
	Finished int // Pods left out: finished (Succeeded, Failed) or terminating, they start no container again
	// Unread names the ConfigMaps selected by label that were not read, past
	// Options.MaxSelectedData: their calls are not judged.
	Unread []string
}

// MaxSelectedData bounds the ConfigMaps selected by label (manifest.SelectsByLabel)
// that one audit reads: Pods that select the same ones are checked together
// and read them once, but a tenant who can create Pods and ConfigMaps could
// make every Pod select other large ones.
const MaxSelectedData = 64 << 20

// Checked says how many Pods were checked, and how many finished or terminating ones were left out.
func (r *Result) Checked() string {
	if r.Finished == 0 {
		return fmt.Sprintf("%d Pods checked", r.Pods)
	}
	return fmt.Sprintf("%d Pods checked (%d finished or terminating, left out)", r.Pods, r.Finished)
}

// finished says whether a Pod ended for good or is being deleted: its env is
// never read again, so judging it would only be noise (stale-proxy-env on a
// completed Job's Pod, or on the old Pod a rollout is replacing, which a second
// rollout would restart again).
func finished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || p.DeletionTimestamp != nil
}

// auditor holds what one audit reads once.
type auditor struct {
	ctx       context.Context
	client    kubernetes.Interface
	cluster   cluster.Facts
	variables []string
	now       rules.Now         // stale-proxy-env: what the values give a container that starts now
	owners    map[string]string // "namespace/ReplicaSet" -> "Deployment/name"
	secrets   map[objectKey]any // a Secret as kept (secret), nil when there is none
	budget    int               // what is left of Options.MaxSelectedData
	limit     int               // Options.MaxSelectedData, for the message
	unread    []string          // the ConfigMaps selected by label past it, since the last page
}

// objectKey is a ConfigMap or Secret of a namespace.
type objectKey struct {
	namespace string
	manifest.Ref
}

// Run audits the Pods that opts name. Errors come from the API server (a
// missing permission names the resource) or from values the library rejects.
func Run(ctx context.Context, client kubernetes.Interface, opts Options) (*Result, error) {
	limit := opts.MaxSelectedData
	if limit <= 0 {
		limit = MaxSelectedData
	}
	a := &auditor{ctx: ctx, client: client, cluster: opts.Cluster, owners: map[string]string{}, secrets: map[objectKey]any{}, budget: limit, limit: limit}
	if opts.Values != nil {
		variables, now, err := rendered(opts.Values)
		if err != nil {
			return nil, err
		}
		a.variables = variables
		if variables != nil { // the values set a proxy: judge staleness against it
			a.now = now
		}
	}
	sources, err := a.sources(opts.Namespace)
	if err != nil {
		return nil, err
	}
	result := &Result{}
	var page []corev1.Pod
	check := func() error {
		found, err := a.check(page, sources)
		result.Findings = append(result.Findings, found...)
		result.Unread = append(result.Unread, a.unread...)
		a.unread = nil
		result.Pods += len(page)
		page = page[:0]
		return err
	}
	err = a.each(opts.Namespace, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		o.LabelSelector = opts.Selector
		return a.client.CoreV1().Pods(opts.Namespace).List(ctx, o)
	}, func(obj runtime.Object) error {
		pod := obj.(*corev1.Pod)
		if finished(pod) {
			result.Finished++
			return nil
		}
		page = append(page, *pod)
		if len(page) == PageSize {
			return check()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list Pods: %w", err)
	}
	if len(page) > 0 {
		if err := check(); err != nil {
			return nil, err
		}
	}
	return result, nil
}

// each lists with client-go's pager, a page of PageSize at a time; across all
// namespaces the API server leaves out the system ones, so their objects are
// never read.
func (a *auditor) each(namespace string, list pager.ListPageFunc, fn func(runtime.Object) error) error {
	opts := metav1.ListOptions{}
	if namespace == "" {
		var skip []string
		for _, ns := range SystemNamespaces {
			skip = append(skip, "metadata.namespace!="+ns)
		}
		opts.FieldSelector = strings.Join(skip, ",")
	}
	p := pager.New(list)
	p.PageSize = PageSize
	return p.EachListItem(a.ctx, opts, fn)
}

// check runs Check (and CheckStale) on one page of Pods with the objects they
// read. Pods with a container that loads ConfigMaps by their label
// (manifest.SelectsByLabel: Grafana's sidecars) are checked apart, with the
// ConfigMaps they select, those that select the same ones together (a
// Deployment's replicas): the calls in them are their containers' alone, and
// each such set is read once, within the audit's budget (Options.MaxSelectedData).
func (a *auditor) check(pods []corev1.Pod, sources map[objectKey]any) ([]Finding, error) {
	var plain []corev1.Pod
	var out []Finding
	groups := map[string][]corev1.Pod{}
	var order []string
	selections := map[string][]objectKey{}
	for _, p := range pods {
		keys := selectedConfigMaps(p, sources)
		if len(keys) == 0 {
			plain = append(plain, p)
			continue
		}
		id := fmt.Sprint(keys)
		if groups[id] == nil {
			order = append(order, id)
			selections[id] = keys
		}
		groups[id] = append(groups[id], p)
	}
	for _, id := range order {
		selected, ok := a.readSelected(selections[id], sources)
		if !ok {
			plain = append(plain, groups[id]...)
			continue
		}
		found, err := a.checkPods(groups[id], sources, selected)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	found, err := a.checkPods(plain, sources, nil)
	return append(out, found...), err
}

// readSelected hands out the ConfigMaps keys name, unless they would take the
// audit past its budget: then they are named in unread, and false.
func (a *auditor) readSelected(keys []objectKey, sources map[objectKey]any) ([]any, bool) {
	size := 0
	for _, key := range keys {
		for k, v := range sources[key].(corev1.ConfigMap).Data {
			size += len(k) + len(v)
		}
	}
	if size > a.budget {
		for _, key := range keys {
			a.unread = append(a.unread, fmt.Sprintf("ConfigMap %s/%s (selected by label; past the %s an audit reads of them)", key.namespace, key.Name, bytesOf(a.limit)))
		}
		return nil, false
	}
	a.budget -= size
	out := make([]any, 0, len(keys))
	for _, key := range keys {
		out = append(out, sources[key])
	}
	return out, true
}

// selectedConfigMaps are the keys of the ConfigMaps of sources that a
// container of p selects by label and p does not name itself, in a stable order.
func selectedConfigMaps(p corev1.Pod, sources map[objectKey]any) []objectKey {
	var selections []manifest.LabelSelection
	for _, c := range append(slices.Clone(p.Spec.InitContainers), p.Spec.Containers...) {
		if s, ok := manifest.SelectsByLabel(c); ok {
			selections = append(selections, s)
		}
	}
	if len(selections) == 0 {
		return nil
	}
	named := map[objectKey]bool{}
	for _, ref := range podReferences(p) {
		named[objectKey{p.Namespace, ref}] = true
	}
	var keys []objectKey
	for key, obj := range sources {
		cm, ok := obj.(corev1.ConfigMap)
		if !ok || named[key] {
			continue
		}
		if slices.ContainsFunc(selections, func(s manifest.LabelSelection) bool { return s.Selects(p.Namespace, key.namespace, cm.Labels) }) {
			keys = append(keys, key)
		}
	}
	slices.SortFunc(keys, func(x, y objectKey) int { return strings.Compare(x.namespace+"/"+x.Name, y.namespace+"/"+y.Name) })
	return keys
}

// checkPods runs Check (and CheckStale) on pods with the objects they read and
// extra objects.
func (a *auditor) checkPods(pods []corev1.Pod, sources map[objectKey]any, extra []any) ([]Finding, error) {
	objects := make([]any, 0, len(pods)+len(extra))
	byName := map[string]corev1.Pod{}
	needed := map[objectKey]bool{}
	for _, p := range pods {
		p.APIVersion, p.Kind = "v1", "Pod"
		p.ManagedFields = nil
		objects = append(objects, p)
		byName[p.Namespace+"/"+p.Name] = p
		for _, ref := range podReferences(p) {
			if key := (objectKey{p.Namespace, ref}); !needed[key] {
				needed[key] = true
				obj, ok := sources[key]
				if key.Kind == "Secret" {
					var err error
					if obj, err = a.secret(key); err != nil {
						return nil, err
					}
					ok = obj != nil
				}
				if ok {
					objects = append(objects, obj)
				}
			}
		}
	}
	m, err := manifest.FromObjects(append(objects, extra...)...)
	if err != nil {
		return nil, err
	}
	found := rules.Check(m, rules.WithCluster(a.cluster), rules.ExpectVariables(a.variables), rules.OnLiveCluster())
	found = append(found, rules.CheckStale(m, a.now)...)
	out := make([]Finding, 0, len(found))
	for _, f := range found {
		name, isPod := strings.CutPrefix(f.Object, "Pod/")
		if !isPod { // a ConfigMap a Pod reads, holding a credential: the object itself
			out = append(out, Finding{Finding: f, Owner: f.Object})
			continue
		}
		pod := byName[f.Namespace+"/"+name]
		out = append(out, Finding{Finding: f, UID: string(pod.UID), Owner: a.owner(pod)})
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

// sources reads the ConfigMaps of namespace ("" for all). Secrets are read
// one by one, only those a Pod reads (secret).
func (a *auditor) sources(namespace string) (map[objectKey]any, error) {
	out := map[objectKey]any{}
	err := a.each(namespace, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return a.client.CoreV1().ConfigMaps(namespace).List(ctx, o)
	}, func(obj runtime.Object) error {
		c := obj.(*corev1.ConfigMap)
		out[objectKey{c.Namespace, manifest.Ref{Kind: "ConfigMap", Name: c.Name}}] = corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace, Labels: c.Labels}, Data: c.Data}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list ConfigMaps (missing-secret needs their keys): %w", err)
	}
	return out, nil
}

// secret reads a Secret a Pod reads, once per
// audit: a get of that Secret alone, so no other Secret of the cluster crosses
// the wire and the audit needs get on Secrets, not list. It keeps the keys (for
// missing-secret), only the values of NO_PROXY keys, which no-proxy-gap judges
// (the others withheld: no URL with credentials stays in memory), and its
// record, which stale-proxy-env judges; nil when there is no such Secret.
func (a *auditor) secret(key objectKey) (any, error) {
	if s, ok := a.secrets[key]; ok {
		return s, nil
	}
	namespace, name := key.namespace, key.Name
	s, err := a.client.CoreV1().Secrets(namespace).Get(a.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		a.secrets[key] = nil
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get Secret %s/%s (missing-secret needs its keys): %w", namespace, name, err)
	}
	data := map[string][]byte{}
	for k, v := range s.Data {
		if strings.Contains(strings.ToUpper(k), "NO_PROXY") {
			data[k] = v
		} else {
			data[k] = nil
		}
	}
	meta := metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace}
	if record, ok := s.Annotations[manifest.AnnotationProxyConfig]; ok {
		meta.Annotations = map[string]string{manifest.AnnotationProxyConfig: record}
	}
	a.secrets[key] = corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: meta, Data: data}
	return a.secrets[key], nil
}

// podReferences lists the Secrets and ConfigMaps a Pod's env reads, and the
// ConfigMaps its volumes project (where in-cluster-call-proxied finds calls in
// config files; a Secret's values are never kept, so a mounted one is not read).
func podReferences(p corev1.Pod) []manifest.Ref {
	var refs []manifest.Ref
	for _, v := range p.Spec.Volumes {
		for _, src := range manifest.VolumeSources(v) {
			if src.Kind == "ConfigMap" {
				refs = append(refs, src.Ref)
			}
		}
	}
	containers := append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...)
	for _, e := range p.Spec.EphemeralContainers {
		containers = append(containers, corev1.Container(e.EphemeralContainerCommon))
	}
	for _, c := range containers {
		s := manifest.SourcesOf(c, nil)
		for _, e := range s.EnvFrom {
			refs = append(refs, e.Ref)
		}
		refs = append(refs, s.KeyRefs...)
	}
	return refs
}

// rendered asks the library, in one render, for the proxy variables the values
// give every container, the value each has there (a Secret's URL read) and the
// record of that configuration.
func rendered(vals map[string]any) (variables []string, now rules.Now, err error) {
	answers, err := proxykit.Ask(vals, "", "", proxykit.Call{Helper: "proxykit.proxy.env"}, proxykit.Call{Helper: "proxykit.proxy.envValues"},
		proxykit.Call{Helper: "proxykit.proxy.record"})
	if err != nil {
		return nil, now, err
	}
	if variables, err = manifest.VariablesOf(answers["proxykit.proxy.env"]); err != nil {
		return nil, now, err
	}
	if err := json.Unmarshal([]byte(answers["proxykit.proxy.envValues"]), &now.Values); err != nil {
		return nil, now, fmt.Errorf("proxykit: the library's proxy env values are not JSON: %w", err)
	}
	now.Record = answers["proxykit.proxy.record"]
	return variables, now, nil
}

// write is the one YAML stream writer of the report outputs.
func write(w io.Writer, docs []any) error {
	for _, d := range docs {
		b, err := yaml.Marshal(d)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "---\n%s", b); err != nil {
			return err
		}
	}
	return nil
}

// bytesOf writes a size as a person reads it: "64 MiB", "48 KiB", "100 bytes".
func bytesOf(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
