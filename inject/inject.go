// Package inject writes the proxy into a rendered manifest stream, the way the
// proxy-policies chart's engines inject it into Pods at admission: for charts you
// don't own, as a Helm post-renderer (`proxykit inject`).
//
// Every container of every pod template (Pods, Deployments, StatefulSets,
// DaemonSets, ReplicaSets, Jobs, CronJobs, and any kind with spec.template) gets
// the variables the proxykit library renders for the values: its own env kept
// and in order, an own proxy variable kept unless policy.overrideExisting, the
// opt-out annotations honoured, proxy.runtimes and the trusted CA applied, and
// credentials only through a Secret the output carries (or proxy.existingSecret).
// Every Service of the stream is added to NO_PROXY in the forms a Pod calls it
// by, and every host the containers call that only the cluster's DNS answers (a
// single label, name.namespace: another release's Service), wherever they keep
// the call (env, envFrom, args, mounted config files).
// Every other object is written back as it was; injecting twice equals injecting
// once.
package inject

import (
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/internal/blockyaml"
	"github.com/proxykit/proxykit/manifest"
)

// Options are what Stream injects.
type Options struct {
	// Values are a chart's values as the library reads them (proxy, cluster,
	// global), plus policy.overrideExisting as proxy-policies reads it.
	Values map[string]any
	// Namespace is the release namespace: where objects without one are.
	Namespace string
	// Release names the proxy Secret (<release>-proxy-credentials) when the
	// proxy URLs carry credentials; default: the objects' common
	// app.kubernetes.io/instance label.
	Release string
}

// Result tells what Stream did.
type Result struct {
	Containers int      // containers that got the proxy
	Services   []string // the Services added to NO_PROXY, "namespace/name"
	Called     []string // the hosts the containers call, added to NO_PROXY: single labels and name.namespace
	// Notes say what became of containers' own proxy settings where the
	// cluster's were not simply added: an own value replaced (policy.overrideExisting),
	// an own NO_PROXY kept without the cluster's entries (policy.mergeNoProxy merges them);
	// and the hosts containers call that were left out of NO_PROXY (a public suffix).
	Notes   []string
	Secrets []string // the proxy Secrets added, "namespace/name"
}

// document is one YAML document of the stream, as read.
type document struct {
	raw     string         // the text, comments included
	comment string         // its leading comment lines ("# Source: ..."), kept when it is rewritten
	object  map[string]any // nil for a document without an object
}

var commentLine = regexp.MustCompile(`^\s*(#.*)?$`)

// split reads a stream into documents, side by side; the text of each is kept.
func split(stream []byte) ([]document, error) {
	texts, err := manifest.SplitDocuments(string(stream))
	if err != nil {
		return nil, err
	}
	read := make([]document, len(texts))
	errs := make([]error, len(texts))
	sideBySide(len(texts), func(i int) { read[i], errs[i] = readDocument(texts[i], i) })
	docs := make([]document, 0, len(texts))
	for i, doc := range read {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if doc.raw != "" {
			docs = append(docs, doc)
		}
	}
	return docs, nil
}

// readDocument reads the i-th document of a stream: none (raw "") for one
// with nothing but space in it.
func readDocument(original string, i int) (document, error) {
	text := strings.Trim(original, "\n")
	if strings.TrimSpace(text) == "" {
		return document{}, nil
	}
	doc := document{raw: text}
	var comments []string
	for rest, more := text, true; more; {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		if !commentLine.MatchString(line) {
			break
		}
		if strings.TrimSpace(line) != "" {
			comments = append(comments, line)
		}
	}
	doc.comment = strings.Join(comments, "\n")
	// decoded as written, line breaks and all: a literal block at the end of
	// the document (a ConfigMap's last value) keeps its final newline
	object, err := blockyaml.Decode([]byte(original))
	if err != nil {
		return document{}, fmt.Errorf("document %d is not YAML: %w", i+1, err)
	}
	switch o := object.(type) {
	case nil:
	case map[string]any:
		doc.object = o
	default:
		return document{}, fmt.Errorf("document %d is not a Kubernetes object (a YAML map)", i+1)
	}
	return doc, nil
}

func (d document) kind() string { s, _ := d.object["kind"].(string); return s }

func (d document) meta(key string) string {
	m, _ := d.object["metadata"].(map[string]any)
	s, _ := m[key].(string)
	return s
}

// hook is the object's helm.sh/hook annotation: Helm 4 post-renders hooks too.
func (d document) hook() string { return manifest.Object{Content: d.object}.Hook() }

// hookWeight is the helm.sh/hook-weight Helm orders the document's hook by (0
// when absent or not a number, as Helm reads it).
func (d document) hookWeight() int {
	meta, _ := d.object["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	weight, _ := annotations["helm.sh/hook-weight"].(string)
	n, _ := strconv.Atoi(strings.TrimSpace(weight))
	return n
}

// namespace is the document's namespace, else the release namespace.
func (d document) namespace(release string) string {
	if ns := d.meta("namespace"); ns != "" {
		return ns
	}
	return release
}

// OptionError is an Options field that the stream needs and that is not set;
// it names the field (a CLI names its flag instead).
type OptionError struct{ Option, Message string }

func (e *OptionError) Error() string { return e.Message + "; set Options." + e.Option }

// Stream reads rendered manifests and returns them with the proxy injected.
// Bad values, a stream that is not YAML, or facts it cannot know (the release
// namespace of a Service without one: an *OptionError) are errors naming the
// key or the Options field.
func Stream(stream []byte, opts Options) ([]byte, Result, error) {
	return New(opts).Stream(stream)
}

// Injector injects with one set of options into many streams: the library is
// rendered once per set of Services and release name, not once per stream.
// Safe for concurrent use.
type Injector struct {
	opts  Options
	mu    sync.Mutex
	cache map[string]*injection // release, called hosts and Services -> what the library rendered
}

// New returns an Injector for opts.
func New(opts Options) *Injector {
	return &Injector{opts: opts, cache: map[string]*injection{}}
}

// render is render, remembered.
func (i *Injector) render(services []proxykit.Call, called []string, release string) (*injection, error) {
	key := release + "\x00" + strings.Join(called, ",")
	for _, c := range services {
		key += fmt.Sprintf("\x00%s:%v", c.Name, c.Args["services"])
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if inj, ok := i.cache[key]; ok {
		return inj, nil
	}
	inj, err := render(i.opts.Values, services, called, release)
	if err == nil {
		i.cache[key] = inj
	}
	return inj, err
}

// Stream is the package's Stream with the Injector's options.
func (i *Injector) Stream(stream []byte) ([]byte, Result, error) {
	var result Result
	docs, err := split(stream)
	if err != nil {
		return nil, result, err
	}
	p, err := i.plan(docs, &result)
	if err != nil {
		return nil, result, err
	}
	// the documents side by side (each is its own), their outcomes taken in stream order
	outcomes := make([]docOutcome, len(docs))
	sideBySide(len(docs), func(n int) { outcomes[n] = p.document(docs[n]) })
	out := make([]string, 0, len(docs))
	wanted := map[string]*hookReaders{} // namespace ("" for the release's) with a Secret needed -> the Helm hooks that read it
	for _, o := range outcomes {
		if o.err != nil {
			return nil, result, o.err
		}
		result.Notes = append(result.Notes, o.notes...)
		result.Containers += o.containers
		if o.secretNamespace != nil {
			ns := *o.secretNamespace
			if wanted[ns] == nil {
				wanted[ns] = &hookReaders{}
			}
			if o.hook {
				wanted[ns].add(o.hookWeight)
			}
		}
		out = append(out, o.text)
	}
	secrets, err := p.inj.secrets(docs, wanted, p.release, i.opts.Namespace)
	if err != nil {
		return nil, result, err
	}
	head := make([]string, 0, len(secrets))
	for _, s := range secrets {
		result.Secrets = append(result.Secrets, s.id)
		head = append(head, s.text)
	}
	return joinDocuments(append(head, out...)), result, nil
}

// plan is what a stream's documents are injected with: the library's render
// for the stream's Services and the hosts its containers call, the release,
// and the policy's flags.
type plan struct {
	inj         *injection
	release     string
	namespace   string // the release namespace
	calledNotes []objectNote
	base        containerOptions // override, merge and the stream's view
}

// plan reads the stream's Services and calls and renders the library once
// for them; result gets the Services, the called hosts and their notes.
func (i *Injector) plan(docs []document, result *Result) (*plan, error) {
	opts := i.opts
	hostCalls, services, err := serviceHosts(docs, opts)
	if err != nil {
		return nil, err
	}
	result.Services = services
	view := streamView(docs, opts.Namespace)
	known, err := knownNamespaces(opts.Values)
	if err != nil {
		return nil, err
	}
	var calledNotes []objectNote
	if result.Called, calledNotes, err = calledHosts(view, services, known, proxyHosts(opts.Values)); err != nil {
		return nil, err
	}
	result.Notes = append(result.Notes, texts(calledNotes)...)
	release := opts.Release
	if release == "" {
		release = releaseOf(docs)
	}
	inj, err := i.render(hostCalls, result.Called, release)
	if err != nil {
		return nil, err
	}
	override, err := policyFlag(opts.Values, "overrideExisting", false)
	if err != nil {
		return nil, err
	}
	merge, err := policyFlag(opts.Values, "mergeNoProxy", true)
	if err != nil {
		return nil, err
	}
	// with credentials an own URL is kept: overriding it would drop its password
	base := containerOptions{override: override && !inj.credentials, merge: merge, view: view}
	return &plan{inj: inj, release: release, namespace: opts.Namespace, calledNotes: calledNotes, base: base}, nil
}

// docOutcome is what injecting one document gave: its text, and what the
// stream's Result and Secrets take from it.
type docOutcome struct {
	text            string
	notes           []string // for Result.Notes
	containers      int
	secretNamespace *string // the namespace whose proxy Secret its containers read, if they do
	hook            bool    // ... as a Helm hook of this weight
	hookWeight      int
	err             error
}

// document injects one document and returns its text, as written when
// nothing changed. It reads the plan and the document alone, so documents
// are injected side by side.
func (p *plan) document(doc document) docOutcome {
	var o docOutcome
	ns := doc.namespace(p.namespace)
	var notes []string // what the annotation says of this object
	for _, note := range p.calledNotes {
		if note.about(doc, ns) {
			notes = append(notes, note.text)
		}
	}
	changed, n := false, 0
	if doc.object != nil && p.inj.enabled {
		opts := p.base
		opts.namespace, opts.where = ns, doc.kind()+"/"+doc.meta("name")
		var own []string
		var err error
		if tmpl, ok := manifest.FindPodTemplate(doc.object); ok {
			changed, n, own, err = p.inj.podTemplate(tmpl, opts)
		} else if doc.kind() == "ConfigMap" {
			changed, n, own, err = p.inj.configMapPods(doc, opts)
		}
		own = append(own, runTimeNotes(doc)...)
		o.notes = own
		notes = append(own, notes...)
		if err != nil {
			o.err = fmt.Errorf("%s %s: %w", doc.kind(), doc.meta("name"), err)
			return o
		}
		if n > 0 && p.inj.secretNeeded {
			o.secretNamespace = &ns
			o.hook, o.hookWeight = doc.hook() != "", doc.hookWeight()
		}
	}
	o.containers = n
	if annotateNotes(doc, notes) {
		changed = true
	}
	if !changed {
		o.text = doc.raw
		return o
	}
	text, err := blockyaml.Marshal(doc.object)
	if err != nil {
		o.err = err
		return o
	}
	o.text = strings.TrimLeft(doc.comment+"\n", "\n") + strings.TrimRight(text, "\n")
	return o
}

// sideBySide calls do for 0..n-1, on as many goroutines as Go runs at once:
// decoding, reading and writing YAML is most of inject's time, and a
// post-renderer runs while Helm waits for it.
func sideBySide(n int, do func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				do(i)
			}
		}(w)
	}
	wg.Wait()
}

// joinDocuments writes documents as one YAML stream.
func joinDocuments(docs []string) []byte {
	var b strings.Builder
	size := 0
	for _, text := range docs {
		size += len("---\n") + len(text) + 1
	}
	b.Grow(size)
	for _, text := range docs {
		b.WriteString("---\n")
		b.WriteString(text)
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// policyFlag reads policy.<key> (overrideExisting, mergeNoProxy), the
// proxy-policies keys, with their defaults there when unset.
func policyFlag(values map[string]any, key string, unset bool) (bool, error) {
	policy, _ := values["policy"].(map[string]any)
	v, ok := policy[key]
	if !ok || v == nil {
		return unset, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("policy.%s must be true or false, got %T", key, v)
	}
	return b, nil
}

// serviceHosts are the library calls that write the NO_PROXY entries for the
// stream's Services (proxykit.proxy.serviceHosts, a call per namespace, named
// "services in NAMESPACE"), which render asks with the rest, and the Services
// as "namespace/name".
func serviceHosts(docs []document, opts Options) ([]proxykit.Call, []string, error) {
	byNamespace := map[string][]string{}
	for _, doc := range docs {
		if doc.kind() != "Service" || doc.meta("name") == "" {
			continue
		}
		ns := doc.namespace(opts.Namespace)
		if ns == "" {
			return nil, nil, &OptionError{Option: "Namespace", Message: fmt.Sprintf("Service %s has no namespace and the release namespace is unknown: NO_PROXY needs the name.namespace form Pods call it by", doc.meta("name"))}
		}
		byNamespace[ns] = append(byNamespace[ns], doc.meta("name"))
	}
	var calls []proxykit.Call
	var services []string
	for _, ns := range slices.Sorted(maps.Keys(byNamespace)) {
		calls = append(calls, proxykit.Call{Helper: "proxykit.proxy.serviceHosts", Name: "services in " + ns, Args: map[string]any{"services": byNamespace[ns], "namespace": ns}})
		for _, name := range byNamespace[ns] {
			services = append(services, ns+"/"+name)
		}
	}
	return calls, services, nil
}

// releaseOf is the release the objects' app.kubernetes.io/instance labels name,
// when they agree; "" otherwise.
func releaseOf(docs []document) string {
	found := ""
	for _, doc := range docs {
		m, _ := doc.object["metadata"].(map[string]any)
		labels, _ := m["labels"].(map[string]any)
		name, _ := labels["app.kubernetes.io/instance"].(string)
		if name == "" {
			continue
		}
		if found != "" && found != name {
			return ""
		}
		found = name
	}
	return found
}
