package proxykit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// maxFuncLines bounds every function the product and its tools ship (tests
// and the separate tool modules aside): a longer one holds more than one step,
// and its steps want names (issue 44).
const maxFuncLines = 60

func TestNoFunctionOverSixtyLines(t *testing.T) {
	fset := token.NewFileSet()
	for _, path := range productGoFiles(t) {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok {
				if lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; lines > maxFuncLines {
					t.Errorf("%s: %s is %d lines, over %d: give its steps names of their own", path, fn.Name.Name, lines, maxFuncLines)
				}
			}
		}
	}
}
