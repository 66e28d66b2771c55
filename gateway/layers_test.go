package gateway

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fileLayers is the order of the gateway package's files, lowest first:
// a file may use what its own layer and the layers below declare, never
// what a layer above does. The Server type itself is the exception: every
// layer hangs its methods on it.
var fileLayers = [][]string{
	// the parts: settings, storage, errors, keys, workspaces, credits,
	// what a request carries, the server's lifecycle
	{"doc.go", "db.go", "errors.go", "ratelimit.go", "conns.go", "ledger.go", "ledger_pg.go", "migrate.go", "migrate_pg.go", "migrate_pg_index.go", "migrate_sqlite.go", "keystore.go",
		"workspace.go", "keys.go", "usage.go", "request.go", "lifecycle.go"},
	// what handlers share: writing responses, billing a call, admission,
	// the tool registry, the voice requests' checks
	{"response.go", "billing.go", "admission.go", "tools.go", "voicecheck.go"},
	// the middleware and the handlers
	{"middleware.go", "handlers.go", "stream.go", "ttsinputs.go", "jobrun.go", "jobs_http.go"},
	// the server: New and its routes
	{"server.go"},
}

// TestFileLayers keeps the package's files in fileLayers' order: a newcomer
// finds routes in server.go, billing beside usage, response writing in
// response.go, and no file reaches up.
func TestFileLayers(t *testing.T) {
	t.Parallel()
	layer := map[string]int{}
	for i, files := range fileLayers {
		for _, f := range files {
			layer[f] = i
		}
	}
	fset := token.NewFileSet()
	names, _ := filepath.Glob("*.go")
	parsed := map[string]*ast.File{}
	decl := map[string]string{}       // package-level name -> file
	serverMeth := map[string]string{} // Server method -> file
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		if _, ok := layer[name]; !ok {
			t.Errorf("%s is in no layer: add it to fileLayers", name)
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed[name] = f
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					decl[d.Name.Name] = name
				} else if recvName(d) == "Server" {
					serverMeth[d.Name.Name] = name
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						decl[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							decl[n.Name] = name
						}
					}
				}
			}
		}
	}
	delete(decl, "Server")
	var bad []string
	for name, f := range parsed {
		uses := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				// s.method() on the Server; other selectors are fields
				// or another package's names.
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "s" {
					if in, ok := serverMeth[n.Sel.Name]; ok && in != name {
						uses[in+": "+n.Sel.Name] = true
					}
				}
				ast.Inspect(n.X, func(m ast.Node) bool { return visitIdent(m, name, decl, uses) })
				return false
			case *ast.KeyValueExpr:
				if _, ok := n.Key.(*ast.Ident); ok {
					ast.Inspect(n.Value, func(m ast.Node) bool { return visitIdent(m, name, decl, uses) })
					return false
				}
			}
			return visitIdent(n, name, decl, uses)
		})
		for u := range uses {
			if to := u[:strings.Index(u, ":")]; layer[to] > layer[name] {
				bad = append(bad, name+" uses "+u)
			}
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s, a file of a layer above", b)
	}
}

// visitIdent records a use of a package-level name of another file: an
// identifier the parser left unresolved (not declared in this file).
func visitIdent(n ast.Node, file string, decl map[string]string, uses map[string]bool) bool {
	if id, ok := n.(*ast.Ident); ok && id.Obj == nil {
		if in, ok := decl[id.Name]; ok && in != file {
			uses[in+": "+id.Name] = true
		}
	}
	return true
}

func recvName(d *ast.FuncDecl) string {
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
