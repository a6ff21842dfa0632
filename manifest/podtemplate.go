package manifest

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
)

// Container is one container of a pod template, with where it comes from.
type Container struct {
	Object string // "Kind/name" of the object that holds the pod template
	List   string // "containers", "initContainers" or "ephemeralContainers"
	// Namespace is the namespace of the object that holds the pod template (the
	// release namespace when it has none; empty when unknown, after Parse).
	Namespace string
	// Annotations are the pod template's annotations, where the opt-outs live.
	Annotations map[string]string
	// Hook is the object's helm.sh/hook annotation ("pre-install", "test" ...):
	// Helm 3 runs hooks and tests without passing them to a post-renderer.
	Hook string
	// Volumes are the pod's volumes, where the files it mounts come from.
	Volumes []corev1.Volume
	corev1.Container
}

// podTemplatePaths are where workload kinds keep their pod template (a Pod is its
// own); any other object with spec.template (an Argo Rollout, say) is found by the
// last entry.
var podTemplatePaths = map[string][]string{
	"Pod":     {},
	"CronJob": {"spec", "jobTemplate", "spec", "template"},
	"":        {"spec", "template"},
}

// podTemplate returns the object's pod template as decoded YAML (a Pod's own
// content), if it has one with containers.
func (o Object) podTemplate() (map[string]any, bool) { return FindPodTemplate(o.Content) }

// FindPodTemplate returns the pod template of a decoded object (a Pod's own
// content; a CronJob's spec.jobTemplate.spec.template; spec.template of any other
// kind: Deployment, StatefulSet, an Argo Rollout ...) when it has one with
// containers. It is the object's own map: changing it changes the object.
func FindPodTemplate(object map[string]any) (map[string]any, bool) {
	kind, _ := object["kind"].(string)
	p, ok := podTemplatePaths[kind]
	if !ok {
		p = podTemplatePaths[""]
	}
	var node any = object
	for _, key := range p {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, false
		}
		node = m[key]
	}
	tmpl, ok := node.(map[string]any)
	if !ok {
		return nil, false
	}
	spec, ok := tmpl["spec"].(map[string]any)
	if !ok {
		return nil, false
	}
	if _, has := spec["containers"]; !has {
		return nil, false
	}
	return tmpl, true
}

// PodTemplate returns the object's pod template (a Pod's own metadata and spec), if it has one.
func (o Object) PodTemplate() (*corev1.PodTemplateSpec, bool) {
	if o.template != nil {
		return o.template.DeepCopy(), true
	}
	raw, ok := o.podTemplate()
	if !ok {
		return nil, false
	}
	tmpl, err := decodePodTemplate(raw)
	return tmpl, err == nil
}

func decodePodTemplate(raw map[string]any) (*corev1.PodTemplateSpec, error) {
	b, err := json.Marshal(map[string]any{"metadata": raw["metadata"], "spec": raw["spec"]})
	if err != nil {
		return nil, err
	}
	var tmpl corev1.PodTemplateSpec
	if err := json.Unmarshal(b, &tmpl); err != nil {
		return nil, err
	}
	return &tmpl, nil
}

// PodSpec returns the object's pod spec (a Pod's own, or its pod template's), if it has one.
func (o Object) PodSpec() (*corev1.PodSpec, bool) {
	tmpl, ok := o.PodTemplate()
	if !ok {
		return nil, false
	}
	return &tmpl.Spec, true
}

// Containers lists every container, init container and ephemeral container of
// every pod template: Pods, Deployments, StatefulSets, DaemonSets, ReplicaSets,
// Jobs, CronJobs and any other object with spec.template.spec.
func (m *Manifests) Containers() []Container {
	var out []Container
	for _, o := range m.Objects {
		tmpl, ok := o.PodTemplate()
		if !ok {
			continue
		}
		at := func(list string, c corev1.Container) Container {
			return Container{Object: o.ID(), List: list, Namespace: m.NamespaceOf(o), Annotations: tmpl.Annotations, Hook: o.Hook(), Volumes: tmpl.Spec.Volumes, Container: c}
		}
		for _, c := range tmpl.Spec.InitContainers {
			out = append(out, at("initContainers", c))
		}
		for _, c := range tmpl.Spec.Containers {
			out = append(out, at("containers", c))
		}
		for _, e := range tmpl.Spec.EphemeralContainers {
			out = append(out, at("ephemeralContainers", corev1.Container(e.EphemeralContainerCommon)))
		}
	}
	return out
}

// Hook is the object's helm.sh/hook annotation, "" for an ordinary object.
func (o Object) Hook() string { return o.Annotation("helm.sh/hook") }

// Annotation is the value of one of the object's own annotations, "" when unset.
func (o Object) Annotation(key string) string {
	meta, _ := o.Content["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	value, _ := annotations[key].(string)
	return value
}
