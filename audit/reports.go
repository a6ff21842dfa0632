package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/proxykit/proxykit/rules"
)

// PolicyReport is a wgpolicyk8s.io/v1alpha2 PolicyReport, the format Kyverno's
// reports and Policy Reporter read (no module this project reaches serves its
// Go types; a test applies these to an API server with the CRD, strictly).
type PolicyReport struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Summary           openreportsv1alpha1.ReportSummary `json:"summary"`
	Results           []PolicyReportResult              `json:"results"`
}

// PolicyReportResult is one finding of a PolicyReport.
type PolicyReportResult struct {
	Source    string                   `json:"source"`
	Policy    string                   `json:"policy"`
	Rule      string                   `json:"rule"`
	Result    string                   `json:"result"`
	Scored    bool                     `json:"scored"`
	Message   string                   `json:"message"`
	Timestamp metav1.Timestamp         `json:"timestamp"`
	Resources []corev1.ObjectReference `json:"resources"`
}

func (f Finding) message() string {
	if f.Container != "" {
		return "container " + f.Container + ": " + f.Message
	}
	return f.Message
}

// resource is the object the finding is about, of its real kind: the Pod, or
// the ConfigMap that a credential was found in. Only a Pod's UID is known.
func (f Finding) resource() *corev1.ObjectReference {
	kind, name, _ := strings.Cut(f.Object, "/")
	ref := &corev1.ObjectReference{APIVersion: "v1", Kind: kind, Namespace: f.Namespace, Name: name}
	if kind == "Pod" {
		ref.UID = types.UID(f.UID)
	}
	return ref
}

var managedBy = map[string]string{"app.kubernetes.io/managed-by": "proxykit"}

// maxReportBytes bounds one report's results so that a namespace of thousands
// of failing Pods never makes a report that `kubectl apply -f -` refuses:
// client-side apply keeps the whole object in the last-applied-configuration
// annotation, and the API server takes at most 262,144 bytes of annotations
// (etcd's 1.5 MiB object limit comes later). The rest of a report (metadata,
// summary) stays far below the margin left.
const maxReportBytes = 200 << 10

// PolicyReports are the findings as PolicyReports, one per namespace
// (proxykit-audit; policy proxykit, rule the finding's, result fail, the Pod as
// resource), sorted by namespace. A namespace whose results pass maxReportBytes
// gets more: proxykit-audit-2, -3, ...
func PolicyReports(findings []Finding) []PolicyReport {
	now := metav1.Timestamp{Seconds: time.Now().Unix()}
	type namespaceReports struct {
		reports []*PolicyReport
		bytes   int // the results of the last report
	}
	byNamespace := map[string]*namespaceReports{}
	for _, f := range findings {
		result := PolicyReportResult{Source: "proxykit", Policy: "proxykit", Rule: f.Rule, Result: "fail", Scored: true,
			Message: f.message(), Timestamp: now, Resources: []corev1.ObjectReference{*f.resource()}}
		size := resultSize(result)
		n, ok := byNamespace[f.Namespace]
		if !ok {
			n = &namespaceReports{}
			byNamespace[f.Namespace] = n
		}
		if len(n.reports) == 0 || n.bytes+size > maxReportBytes {
			name := "proxykit-audit"
			if len(n.reports) > 0 {
				name = fmt.Sprintf("proxykit-audit-%d", len(n.reports)+1)
			}
			n.reports = append(n.reports, &PolicyReport{TypeMeta: metav1.TypeMeta{APIVersion: "wgpolicyk8s.io/v1alpha2", Kind: "PolicyReport"},
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace, Labels: managedBy}})
			n.bytes = 0
		}
		r := n.reports[len(n.reports)-1]
		r.Results = append(r.Results, result)
		r.Summary.Fail++
		n.bytes += size
	}
	namespaces := slices.Sorted(maps.Keys(byNamespace))
	var out []PolicyReport
	for _, ns := range namespaces {
		for _, r := range byNamespace[ns].reports {
			out = append(out, *r)
		}
	}
	return out
}

// resultSize is a result's size in the stored object.
func resultSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return maxReportBytes
	}
	return len(b)
}

// OpenReports are the findings as one openreports.io/v1alpha1 Report per Pod (the
// format Kyverno and Kubewarden move to), each scoped to its Pod by UID and named
// proxykit-<UID>: two Pods of one name in two namespaces never share one, and a
// later audit's report replaces this one. A finding about another object (a
// ConfigMap holding a credential) gets a report scoped to that object.
func OpenReports(findings []Finding) []openreportsv1alpha1.Report {
	now := metav1.Timestamp{Seconds: time.Now().Unix()}
	var out []openreportsv1alpha1.Report
	at := map[string]int{}
	for _, f := range findings {
		key := f.Namespace + "/" + f.Object + "/" + f.UID
		i, ok := at[key]
		if !ok {
			scope := f.resource()
			name := string(scope.UID)
			if name == "" {
				name = strings.ToLower(scope.Kind) + "-" + scope.Name
			}
			i = len(out)
			at[key] = i
			out = append(out, openreportsv1alpha1.Report{
				TypeMeta:   metav1.TypeMeta{APIVersion: "openreports.io/v1alpha1", Kind: "Report"},
				ObjectMeta: metav1.ObjectMeta{Name: truncate("proxykit-"+name, 253), Namespace: f.Namespace, Labels: managedBy},
				Source:     "proxykit", Scope: scope})
		}
		out[i].Results = append(out[i].Results, openreportsv1alpha1.ReportResult{Source: "proxykit", Policy: "proxykit", Rule: f.Rule,
			Result: "fail", Scored: true, Description: f.message(), Timestamp: now})
		out[i].Summary.Fail++
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// WritePolicyReports prints PolicyReports as YAML documents, for kubectl apply -f -.
func WritePolicyReports(w io.Writer, findings []Finding) error {
	var docs []any
	for _, r := range PolicyReports(findings) {
		docs = append(docs, r)
	}
	return write(w, docs)
}

// WriteOpenReports prints OpenReports as YAML documents, for kubectl apply -f -.
func WriteOpenReports(w io.Writer, findings []Finding) error {
	var docs []any
	for _, r := range OpenReports(findings) {
		docs = append(docs, r)
	}
	return write(w, docs)
}

// WriteJSON prints [{"namespace","object","container","rule","message"}].
func WriteJSON(w io.Writer, findings []Finding) error {
	rows := make([]rules.Finding, 0, len(findings))
	for _, f := range findings {
		rows = append(rows, f.Finding)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// shownPods is how many Pods a text line names before it gives the rest as a count.
const shownPods = 3

// WriteText prints one line per owner and rule (the Pods of one Deployment share
// it, named up to shownPods, the rest counted), then a summary per namespace and
// rule, then the totals: thousands of Pods stay a page an operator reads.
// Pods whose message differs under one owner and rule say so; -o json has each.
func WriteText(w io.Writer, r *Result) {
	groups, order := groupFindings(r.Findings)
	last := ""
	for _, l := range order {
		if head := l.namespace + " " + l.owner; head != last {
			fmt.Fprintf(w, "%s/%s:\n", l.namespace, l.owner)
			last = head
		}
		g := groups[l]
		pods := g.pods
		more := ""
		if len(pods) > shownPods {
			more = fmt.Sprintf(" and %d more", len(pods)-shownPods)
			pods = pods[:shownPods]
		}
		differ := ""
		if len(g.messages) > 1 {
			differ = fmt.Sprintf("; and %d other messages: -o json has each", len(g.messages)-1)
		}
		fmt.Fprintf(w, "  %s (Pods: %s%s%s)\n", g.text, strings.Join(pods, ", "), more, differ)
	}
	writeSummary(w, r.Findings)
	fmt.Fprintf(w, "%s, %d findings\n", r.Checked(), len(r.Findings))
}

// textLine is one line of the text report: a rule's findings for one owner.
type textLine struct{ namespace, owner, rule string }

// textGroup is what one line says: the first Pod's message, every Pod, and
// how many messages differ.
type textGroup struct {
	text     string // the first Pod's: "container app: rule: message"
	pods     []string
	messages map[string]bool
}

// groupFindings groups findings by namespace, owner and rule, the lines in
// the order of namespace and owner, each rule in the order it came.
func groupFindings(findings []Finding) (map[textLine]*textGroup, []textLine) {
	groups := map[textLine]*textGroup{}
	var order []textLine
	for _, f := range findings {
		text := f.Rule + ": " + f.Message
		if f.Container != "" {
			text = "container " + f.Container + ": " + text
		}
		l := textLine{f.Namespace, f.Owner, f.Rule}
		g, ok := groups[l]
		if !ok {
			g = &textGroup{text: text, messages: map[string]bool{}}
			groups[l] = g
			order = append(order, l)
		}
		g.messages[text] = true
		if pod := strings.TrimPrefix(f.Object, "Pod/"); !slices.Contains(g.pods, pod) {
			g.pods = append(g.pods, pod)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].namespace != order[j].namespace {
			return order[i].namespace < order[j].namespace
		}
		return order[i].owner < order[j].owner
	})
	return groups, order
}

// writeSummary writes the table of Pods and findings per namespace and rule.
func writeSummary(w io.Writer, findings []Finding) {
	type key struct{ namespace, rule string }
	pods := map[key]map[string]bool{}
	counts := map[key]int{}
	for _, f := range findings {
		k := key{f.Namespace, f.Rule}
		if pods[k] == nil {
			pods[k] = map[string]bool{}
		}
		pods[k][f.Object] = true
		counts[k]++
	}
	if len(pods) == 0 {
		return
	}
	keys := slices.SortedFunc(maps.Keys(pods), func(a, b key) int {
		return strings.Compare(a.namespace+"\x00"+a.rule, b.namespace+"\x00"+b.rule)
	})
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tRULE\tPODS\tFINDINGS")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", k.namespace, k.rule, len(pods[k]), counts[k])
	}
	tw.Flush()
}
