package api_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
)

// The exit-code table names error codes as strings, since it cannot import
// api: every Code constant api declares must reach a row of its own, with
// either recoverable flag, never the row of codes the table does not know.
func TestEveryErrorCodeHasItsOwnExitCode(t *testing.T) {
	t.Parallel()
	codes := declaredCodes(t)
	for _, known := range []string{api.CodeValidation, api.CodeProjectNotReady, api.CodeUnauthorized} {
		if !codes[known] {
			t.Fatalf("found %v in api's source, not %q: the search for Code constants is broken", codes, known)
		}
	}
	byExit := map[int]string{}
	for _, row := range exitcode.Table() {
		byExit[row.Exit] = row.Code
	}
	for code := range codes {
		for _, recoverable := range []bool{true, false} {
			exit := exitcode.ForCode(code, recoverable)
			if byExit[exit] != code {
				t.Errorf("api.Code %q (recoverable %v) exits %d, the row of %q: add it to exitcode's table", code, recoverable, exit, byExit[exit])
			}
		}
	}
}

// declaredCodes reads the values of the string constants named Code... in
// api's non-test source, wherever they are declared.
func declaredCodes(t *testing.T) map[string]bool {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, "Code") || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						value, err := strconv.Unquote(lit.Value)
						if err != nil {
							t.Fatal(err)
						}
						codes[value] = true
					}
				}
			}
		}
	}
	return codes
}
