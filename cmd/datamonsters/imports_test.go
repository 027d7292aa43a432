package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The project's packages the import graph is held to.
const (
	module      = "github.com/datamonsters/turns"
	accountsPkg = module + "/accounts"
)

// frontDoors are the three front doors: only main wires more than one.
var frontDoors = []string{module + "/api", module + "/web", module + "/inbound"}

// listed is what `go list -json` says of a package: its path, the
// packages it imports and all it depends on.
type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// projectPackages lists every package of the module (not its tests).
func projectPackages(t *testing.T) []listed {
	t.Helper()
	goTool := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	out, err := exec.Command(goTool, "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	return pkgs
}

// TestImportGraph holds the packages to the architecture (see the package
// docs of accounts and internal/router): the API and the pages do not
// depend on each other; nothing but cmd/ depends on more than one front
// door (main mounts them as peers); and the accounts know nothing of
// HTTP, neither gin nor net/http, not even through another package of the
// project.
func TestImportGraph(t *testing.T) {
	pkgs := map[string]listed{}
	for _, p := range projectPackages(t) {
		pkgs[p.ImportPath] = p
	}
	for _, p := range pkgs {
		var doors []string
		for _, d := range frontDoors {
			if d != p.ImportPath && slices.Contains(p.Deps, d) {
				doors = append(doors, d)
			}
		}
		switch {
		case p.ImportPath == module+"/api" && slices.Contains(p.Deps, module+"/web"),
			p.ImportPath == module+"/web" && slices.Contains(p.Deps, module+"/api"):
			t.Errorf("%s depends on the other HTTP door", p.ImportPath)
		case len(doors) > 1 && !strings.HasPrefix(p.ImportPath, module+"/cmd/"):
			t.Errorf("%s depends on %d front doors (%s); only cmd/ wires more than one", p.ImportPath, len(doors), strings.Join(doors, ", "))
		}
	}
	acc := pkgs[accountsPkg]
	for _, d := range acc.Deps {
		if d == "net/http" || strings.Contains(d, "gin-gonic/gin") {
			t.Errorf("accounts depends on %s, through %s", d, strings.Join(via(pkgs, acc, d), ", "))
		}
	}
	for _, want := range append(frontDoors, accountsPkg, module+"/cmd/datamonsters") {
		if _, ok := pkgs[want]; !ok {
			t.Errorf("go list did not list %s", want)
		}
	}
}

// via names the imports of p that bring dep in: dep itself, or those of
// the project's that depend on it.
func via(pkgs map[string]listed, p listed, dep string) []string {
	var out []string
	for _, imp := range p.Imports {
		if imp == dep || slices.Contains(pkgs[imp].Deps, dep) {
			out = append(out, imp)
		}
	}
	return out
}

// TestOneWriterOfRefusals holds each HTTP door to one way of answering an
// error: a handler returns it, and the door's adapter (handle) writes the
// problem or the error page. Only the adapter, the router's answers (no
// route, wrong method, a panic) and the middleware that stops a request
// before any handler call the writer.
func TestOneWriterOfRefusals(t *testing.T) {
	doors := []struct {
		dir, writer string
		allowed     []string
	}{
		{"../../api", "writeError", []string{"handle", "NotFound", "MethodNotAllowed", "Failed", "authenticateToken", "require", "writeJSON"}},
		{"../../web", "fail", []string{"handle", "NotFound", "MethodNotAllowed", "Failed", "recover", "crossOrigin", "storable"}},
	}
	for _, d := range doors {
		files, err := filepath.Glob(filepath.Join(d.dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		calls := 0
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					var callee string
					switch fn := call.Fun.(type) {
					case *ast.Ident:
						callee = fn.Name
					case *ast.SelectorExpr:
						callee = fn.Sel.Name
					}
					if callee != d.writer {
						return true
					}
					calls++
					if !slices.Contains(d.allowed, fd.Name.Name) {
						t.Errorf("%s: %s calls %s: return the error and let handle write it", fset.Position(call.Pos()), fd.Name.Name, d.writer)
					}
					return true
				})
			}
		}
		if calls == 0 {
			t.Errorf("%s: no call of %s found: is the test looking at the right door?", d.dir, d.writer)
		}
	}
}
