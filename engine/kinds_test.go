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

// TestAskedWindowLine: a message that shows Ben's interrupt question
// leaves out the question's event and the line of the window that asks
// him alone; a window that asks Cy too keeps its line, which names her.
func TestAskedWindowLine(t *testing.T) {
	for _, tc := range []struct {
		cyHand string
		kept   bool
	}{{"[]", false}, {"[red-tape]", true}} {
		res := scenarioRun(t, `
players:
  - {name: Ana, hand: [audit-season]}
  - {name: Ben, hand: [red-tape]}
  - {name: Cy, hand: `+tc.cyHand+`}
steps: [{do: play_hack, card: audit-season}]
`)
		events := stepEvents(res)
		ps := PromptsFor(res.State, 1)
		if len(ps) != 1 || ps[0].Kind != PromptInterrupt {
			t.Fatalf("Cy's hand %s: Ben's prompts %+v", tc.cyHand, ps)
		}
		again := asked(events, ps)
		windows, questions := 0, 0
		for i, e := range events {
			switch {
			case e.Kind == KindWindowOpened:
				windows++
				if again[i] == tc.kept {
					t.Errorf("Cy's hand %s: the window's line %q left out: %v, want %v", tc.cyHand, e.Text, again[i], !tc.kept)
				}
			case e.Kind == KindPrompt && e.Prompt == ps[0].ID:
				questions++
				if !again[i] {
					t.Errorf("Cy's hand %s: the question's own event is kept", tc.cyHand)
				}
			case again[i]:
				t.Errorf("Cy's hand %s: %s %q left out", tc.cyHand, e.Kind, e.Text)
			}
		}
		if windows != 1 || questions != 1 {
			t.Errorf("Cy's hand %s: %d windows, %d questions of Ben's in the events", tc.cyHand, windows, questions)
		}
	}
}
