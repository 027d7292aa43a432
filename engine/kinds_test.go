package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEveryEventKindIsListed reads the engine's source: every event it
// makes (an Event literal) takes its kind from a Kind constant, never a
// string of its own, and every Kind constant is in EventKinds, once. So
// a new kind of event cannot be made without being listed, and, being
// listed, without a row in TestEventSentences.
func TestEveryEventKindIsListed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	consts := map[string]string{} // Kind constant → its value
	made := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if lit, ok := valueAt(n, i).(*ast.BasicLit); ok && strings.HasPrefix(id.Name, "Kind") && lit.Kind == token.STRING {
						consts[id.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			case *ast.CompositeLit:
				lits := []*ast.CompositeLit{n}
				if arr, ok := n.Type.(*ast.ArrayType); ok && isIdent(arr.Elt, "Event") {
					lits = nil // []Event{{...}}: the elements are Events
					for _, e := range n.Elts {
						if c, ok := e.(*ast.CompositeLit); ok {
							lits = append(lits, c)
						}
					}
				} else if !isIdent(n.Type, "Event") {
					return true
				}
				for _, c := range lits {
					for _, e := range c.Elts {
						kv, ok := e.(*ast.KeyValueExpr)
						if !ok || !isIdent(kv.Key, "Kind") {
							continue
						}
						made++
						if lit, ok := kv.Value.(*ast.BasicLit); ok {
							t.Errorf("%s: an event of kind %s: take a Kind constant of kinds.go", fset.Position(lit.Pos()), lit.Value)
						}
					}
				}
			}
			return true
		})
	}
	if made < len(eventKinds) || len(consts) == 0 {
		t.Fatalf("%d events made, %d Kind constants: the source is not read as it should be", made, len(consts))
	}
	if len(consts) != len(eventKinds) {
		t.Errorf("%d Kind constants, %d kinds in EventKinds", len(consts), len(eventKinds))
	}
	for name, v := range consts {
		n := 0
		for _, k := range eventKinds {
			if k == v {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s (%q) is listed %d times in EventKinds", name, v, n)
		}
	}
}

// valueAt is the value of a constant spec's ith name, nil for none.
func valueAt(s *ast.ValueSpec, i int) ast.Expr {
	if i < len(s.Values) {
		return s.Values[i]
	}
	return nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
