package proxykit

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// productGoFiles lists the Go files the product and its tools ship: test files,
// tests/, the separate tool modules (tools/), testdata, node_modules, bin/,
// dist/ and hidden folders aside.
func productGoFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "tests", "tools", "testdata", "node_modules", "bin", "dist":
				return filepath.SkipDir
			}
			if path != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
