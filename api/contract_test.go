package api_test

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	turns "github.com/datamonsters/turns"
	"github.com/datamonsters/turns/api"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"
)

// TestRouteTableMatchesContract checks that every route the server has is
// in openapi.yaml and every operation in openapi.yaml is served.
func TestRouteTableMatchesContract(t *testing.T) {
	contract(t) // the document validates
	doc, err := openapi3.NewLoader().LoadFromData(turns.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, "sqlite", testConfig())
	engine := api.New(e.store, testConfig(), nil, nil).Handler().(*gin.Engine)
	param := regexp.MustCompile(`:(\w+)`)
	served := map[string]bool{}
	for _, r := range engine.Routes() {
		served[r.Method+" "+param.ReplaceAllString(r.Path, "{$1}")] = true
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	var missing, extra []string
	for k := range served {
		if !documented[k] {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if !served[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("served but not in openapi.yaml: %v\nin openapi.yaml but not served: %v", missing, extra)
	}
	if len(served) < 30 {
		t.Fatalf("only %d routes", len(served))
	}
}
