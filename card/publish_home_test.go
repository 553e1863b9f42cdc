package card_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// publicationMarks are what only the one publication home may write, each with the
// rule it marks. A package other than card that writes one answers the question again.
var publicationMarks = map[string]string{
	`"If-None-Match"`:               "conditional card answers (card.ServeCard, through http.ServeContent)",
	`"If-Modified-Since"`:           "conditional card answers (card.ServeCard)",
	`"application/jwk-set+json"`:    "the JWKS endpoint (signature.CardSigner.ServeJWKS)",
	`"application/grpc+"`:           "is this a gRPC request (card.IsGRPCRequest)",
	`"application/grpc;"`:           "is this a gRPC request (card.IsGRPCRequest)",
	`"Access-Control-Allow-Origin"`: "CORS of the card and JWKS endpoints (card.AnswerCardPreflight, ServeJWKS)",
}

// publicationCalls are calls only card makes: the JSON object tokenizer of the
// order-preserving editor (card.Object), the signer and the card answer.
var publicationCalls = map[string]string{
	"PublicJWKS":   "the JWKS a card endpoint serves (signature.NewCardSigner)",
	"ServeContent": "the card answer (card.ServeCard)",
}

// jwksHome is the signer's JWKS endpoint, the one home of the marks of a JWKS answer.
const jwksHome = "signature/signer.go"

// allowed says why a call outside card is not a second home.
func allowed(rel, call string) bool {
	// `a2abind key jwks` prints a key's JWKS to standard output: no endpoint.
	return call == "PublicJWKS" && (strings.HasPrefix(rel, "internal/cli/") || rel == jwksHome)
}

// TestPublicationHasOneHome: the card endpoint, the JSON editor and the gRPC request
// rule are written in card only, the signer's JWKS endpoint in jwksHome only; serve's and guard's copies
// were deleted and must stay so.
func TestPublicationHasOneHome(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "card" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				s, _ := strconv.Unquote(n.Value)
				for mark, rule := range publicationMarks {
					if rel == jwksHome && (mark == `"application/jwk-set+json"` || mark == `"Access-Control-Allow-Origin"`) {
						continue
					}
					m, _ := strconv.Unquote(mark)
					if strings.EqualFold(s, m) || strings.HasPrefix(strings.ToLower(s), strings.ToLower(m)) && strings.HasSuffix(m, "+") {
						t.Errorf("%s: %s writes %s: %s has one home in card", fset.Position(n.Pos()), rel, mark, rule)
					}
				}
			case *ast.SelectorExpr:
				if rule, ok := publicationCalls[n.Sel.Name]; ok && !allowed(rel, n.Sel.Name) {
					t.Errorf("%s: %s calls %s: %s has one home in card", fset.Position(n.Pos()), rel, n.Sel.Name, rule)
				}
			case *ast.CallExpr:
				// json.Delim('{'): a hand-written JSON object tokenizer (card.Object).
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Delim" && len(n.Args) == 1 {
					if lit, ok := n.Args[0].(*ast.BasicLit); ok && lit.Value == `'{'` && rel != "internal/accesslog/accesslog.go" {
						t.Errorf("%s: %s tokenizes a JSON object by hand: use card.DecodeObject", fset.Position(n.Pos()), rel)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
