package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/tests/fixture"
)

// publishedCharts are the charts chart-testing sees (ct.yaml chart-dirs).
func publishedCharts(t *testing.T) []string {
	var dirs []string
	for _, pattern := range []string{"charts/*/Chart.yaml", "library/*/Chart.yaml"} {
		matches, err := filepath.Glob(fixture.Path(pattern))
		require.NoError(t, err)
		for _, m := range matches {
			dirs = append(dirs, filepath.Dir(m))
		}
	}
	require.NotEmpty(t, dirs)
	return dirs
}

func readChartfile(t testing.TB, path string) chart.Metadata {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var md chart.Metadata
	require.NoError(t, yaml.UnmarshalStrict(raw, &md), "%s", path)
	return md
}

// TestChartMetadata checks what chart-testing checks in Chart.yaml, for every chart.
func TestChartMetadata(t *testing.T) {
	for _, dir := range append(publishedCharts(t), fixture.ChartDirs()...) {
		rel, _ := filepath.Rel(fixture.Root, dir)
		t.Run(rel, func(t *testing.T) {
			md := readChartfile(t, filepath.Join(dir, "Chart.yaml"))
			assert.Equal(t, "v2", md.APIVersion)
			_, err := semver.StrictNewVersion(md.Version)
			assert.NoError(t, err, "version %q is not semver", md.Version)
			assert.Contains(t, []string{"application", "library"}, md.Type)
			assert.Equal(t, filepath.Base(dir) == "proxykit", md.Type == "library", "only the library is type: library")
			assert.NotEmpty(t, md.Description)
			if strings.HasPrefix(rel, "charts/") || strings.HasPrefix(rel, "library/") || strings.HasPrefix(rel, "examples/") {
				assert.NotEmpty(t, md.Maintainers, "maintainers")
			}
			if strings.HasPrefix(rel, "charts/") || strings.HasPrefix(rel, "library/") {
				assertArtifactHubAnnotations(t, md)
			}
			for _, dep := range md.Dependencies {
				assert.True(t, strings.HasPrefix(dep.Repository, "file://"), "dependency %s comes from the repository", dep.Name)
				lib := readChartfile(t, filepath.Join(dir, strings.TrimPrefix(dep.Repository, "file://"), "Chart.yaml"))
				assert.Equal(t, lib.Version, dep.Version, "dependency %s pins the library's version", dep.Name)
			}
		})
	}
}

// chartsWithoutVersionBump lists charts under repo whose committed content changed
// between base and HEAD but whose Chart.yaml version did not increase. A chart new
// since base is fine; uncommitted edits do not count, so work in progress tests.
func chartsWithoutVersionBump(t testing.TB, repo, base string, charts []string) []string {
	t.Helper()
	var stale []string
	for _, dir := range charts {
		if _, err := fixture.Git(t, repo, "diff", "--quiet", base, "HEAD", "--", dir); err == nil {
			continue // unchanged
		}
		old, err := fixture.Git(t, repo, "show", base+":"+filepath.ToSlash(filepath.Join(dir, "Chart.yaml")))
		if err != nil {
			continue // new chart
		}
		current, err := fixture.Git(t, repo, "show", "HEAD:"+filepath.ToSlash(filepath.Join(dir, "Chart.yaml")))
		require.NoError(t, err, current)
		var before, now chart.Metadata
		require.NoError(t, yaml.Unmarshal([]byte(old), &before))
		require.NoError(t, yaml.Unmarshal([]byte(current), &now))
		oldV, err1 := semver.NewVersion(before.Version)
		newV, err2 := semver.NewVersion(now.Version)
		if err1 != nil || err2 != nil || !newV.GreaterThan(oldV) {
			stale = append(stale, dir)
		}
	}
	return stale
}

// mergeBase is where this branch left the target branch (ct.yaml target-branch).
func mergeBase(t *testing.T) string {
	t.Helper()
	readRefs(t)
	candidates := []string{"origin/main", "main"}
	if ref := os.Getenv("PROXYKIT_BASE_REF"); ref != "" {
		candidates = []string{ref}
	}
	for _, ref := range candidates {
		if base, err := fixture.Git(t, fixture.Root, "merge-base", "HEAD", ref); err == nil {
			return base
		}
	}
	require.FailNow(t, "no target branch", "none of %v exists; set PROXYKIT_BASE_REF", candidates)
	return ""
}

// TestChartVersionBumps: a chart that changed since the merge base needs a higher version.
func TestChartVersionBumps(t *testing.T) {
	var rels []string
	for _, dir := range publishedCharts(t) {
		rel, _ := filepath.Rel(fixture.Root, dir)
		rels = append(rels, rel)
	}
	assert.Empty(t, chartsWithoutVersionBump(t, fixture.Root, mergeBase(t), rels), "bump version in Chart.yaml of these charts")
}

// TestVersionBumpCheckCatchesAMissingBump runs the check on a throwaway repository.
func TestVersionBumpCheckCatchesAMissingBump(t *testing.T) {
	repo := t.TempDir()
	write := func(path, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(repo, path)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(repo, path), []byte(content), 0o644))
	}
	run := func(args ...string) {
		out, err := fixture.Git(t, repo, args...)
		require.NoError(t, err, out)
	}
	run("init", "-q", "-b", "main")
	run("config", "user.email", "test@proxykit.invalid")
	run("config", "user.name", "test")
	write("charts/a/Chart.yaml", "apiVersion: v2\nname: a\nversion: 0.1.0\n")
	write("charts/a/values.yaml", "x: 1\n")
	write("charts/b/Chart.yaml", "apiVersion: v2\nname: b\nversion: 0.1.0\n")
	run("add", "-A")
	run("commit", "-qm", "base")
	base, err := fixture.Git(t, repo, "rev-parse", "HEAD")
	require.NoError(t, err)

	charts := []string{"charts/a", "charts/b", "charts/c"}
	write("charts/a/values.yaml", "x: 2\n")
	assert.Empty(t, chartsWithoutVersionBump(t, repo, base, charts), "uncommitted work does not count")

	write("charts/b/Chart.yaml", "apiVersion: v2\nname: b\nversion: 0.2.0\n") // changed and bumped
	write("charts/c/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n") // new
	run("add", "-A")
	run("commit", "-qm", "change a without a bump")
	assert.Equal(t, []string{"charts/a"}, chartsWithoutVersionBump(t, repo, base, charts))

	write("charts/a/Chart.yaml", "apiVersion: v2\nname: a\nversion: 0.1.1\n")
	run("commit", "-qam", "bump a")
	assert.Empty(t, chartsWithoutVersionBump(t, repo, base, charts))
}

// assertArtifactHubAnnotations: a published chart carries its license, links and
// the changes of its version, and CHANGELOG.md has a section for that version.
func assertArtifactHubAnnotations(t *testing.T, md chart.Metadata) {
	t.Helper()
	assert.Equal(t, "Apache-2.0", md.Annotations["artifacthub.io/license"])
	var links []struct{ Name, URL string }
	require.NoError(t, yaml.UnmarshalStrict([]byte(md.Annotations["artifacthub.io/links"]), &links), "artifacthub.io/links")
	assert.NotEmpty(t, links)
	var changes []struct{ Kind, Description string }
	require.NoError(t, yaml.UnmarshalStrict([]byte(md.Annotations["artifacthub.io/changes"]), &changes), "artifacthub.io/changes")
	require.NotEmpty(t, changes, "artifacthub.io/changes lists what this version changed")
	for _, c := range changes {
		assert.Contains(t, []string{"added", "changed", "deprecated", "removed", "fixed", "security"}, c.Kind, "Artifact Hub's change kinds")
		assert.NotEmpty(t, c.Description)
	}
	changelog, err := os.ReadFile(fixture.Path("CHANGELOG.md"))
	require.NoError(t, err)
	assert.Contains(t, string(changelog), "## ["+md.Version+"]", "CHANGELOG.md notes version %s", md.Version)
	assert.Equal(t, "https://github.com/proxykit/proxykit", md.Home)
}

// TestHelmPluginVersion: Helm 4's post-renderer plugin is released with the
// library and charts, under their version.
func TestHelmPluginVersion(t *testing.T) {
	var plugin, library struct{ Name, Version, Type string }
	b, err := os.ReadFile(fixture.Path("helm-plugin", "plugin.yaml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, &plugin))
	b, err = os.ReadFile(fixture.Path("library", "proxykit", "Chart.yaml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, &library))
	assert.Equal(t, library.Version, plugin.Version)
	assert.Equal(t, "postrenderer/v1", plugin.Type)
	assert.Equal(t, "proxykit", plugin.Name)
}

// readRefs reads the repository's HEAD and refs in process, so that go test's
// cache, which sees the files a test opens but not what git reads, keys this
// package's result on them: a commit or a moved target branch reruns the check.
func readRefs(t *testing.T) {
	t.Helper()
	out, err := fixture.Git(t, fixture.Root, "rev-parse", "--absolute-git-dir", "--git-common-dir")
	require.NoError(t, err, out)
	dirs := strings.Split(out, "\n") // a worktree's HEAD, and the refs it shares with the others
	require.Len(t, dirs, 2, out)
	common := dirs[1]
	if !filepath.IsAbs(common) {
		common = filepath.Join(fixture.Root, common)
	}
	for _, file := range []string{filepath.Join(dirs[0], "HEAD"), filepath.Join(common, "packed-refs")} {
		_, _ = os.ReadFile(file) // packed-refs may not exist
	}
	require.NoError(t, filepath.WalkDir(filepath.Join(common, "refs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			_, err = os.ReadFile(path)
		}
		return err
	}))
}
