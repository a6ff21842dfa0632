// Package testfs holds the file helpers the project's tests share.
package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

// CopyTree copies the directory from to to, leaving out every directory named
// in skip at the top level (charts/, say: fetched dependencies). It fails t on
// any error.
func CopyTree(t testing.TB, from, to string, skip ...string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			for _, s := range skip {
				if rel == s {
					return filepath.SkipDir
				}
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", from, to, err)
	}
}
