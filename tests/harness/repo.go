package harness

import (
	"os"
	"path/filepath"
	"runtime"
)

// root is the repository: two folders above this file.
var root = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}()

// Bin is the path of a tool `make tools` builds into bin/.
func Bin(name string) string { return filepath.Join(root, "bin", name) }

// hasBin tells whether bin/name exists.
func hasBin(name string) bool {
	_, err := os.Stat(Bin(name))
	return err == nil
}
