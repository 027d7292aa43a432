package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// bodySchemas validates JSON request and response bodies against openapi.yaml's
// schemas as JSON Schema 2020-12 (what an OpenAPI 3.1 schema is), each
// compiled once. kin-openapi compiles a fresh validator for every body it
// checks, which was more than a third of this package's test time; its
// ValidateResponse still checks the status, headers and content type.
var bodySchemas = struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	err      error
	compiled map[*openapi3.SchemaRef]*jsonschema.Schema
}{}

// docURL is where the whole of openapi.yaml sits for the compiler, so that
// the schemas' "#/components/..." references resolve into it.
const docURL = "file:///openapi.json"

// bodySchema returns the compiled schema of ref, a response body schema of
// the contract that contract() loaded.
func bodySchema(ref *openapi3.SchemaRef) (*jsonschema.Schema, error) {
	bodySchemas.mu.Lock()
	defer bodySchemas.mu.Unlock()
	if bodySchemas.compiler == nil && bodySchemas.err == nil {
		bodySchemas.err = loadContractSchemas()
	}
	if bodySchemas.err != nil {
		return nil, bodySchemas.err
	}
	if s, ok := bodySchemas.compiled[ref]; ok {
		return s, nil
	}
	raw, err := json.Marshal(ref)
	if err != nil {
		return nil, err
	}
	raw = bytes.ReplaceAll(raw, []byte(`"#/components/`), []byte(`"`+docURL+`#/components/`))
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("file:///body-%d.json", len(bodySchemas.compiled))
	if err := bodySchemas.compiler.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := bodySchemas.compiler.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile the schema %s: %w", raw, err)
	}
	bodySchemas.compiled[ref] = s
	return s, nil
}

// loadContractSchemas makes the compiler, with the contract as contract()
// closed it (specDoc: no field it does not name) as a resource and the
// formats asserted, as kin-openapi asserts them.
func loadContractSchemas() error {
	if specDoc == nil {
		return fmt.Errorf("the contract is not loaded")
	}
	raw, err := json.Marshal(specDoc)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(docURL, v); err != nil {
		return err
	}
	bodySchemas.compiler, bodySchemas.compiled = c, map[*openapi3.SchemaRef]*jsonschema.Schema{}
	return nil
}

// validateBody checks a JSON response body against the schema the route
// gives its status and content type; other bodies are left to kin-openapi
// (validated reports false).
func validateBody(op *openapi3.Operation, status int, contentType string, body []byte) (validated bool, err error) {
	if op == nil || op.Responses == nil {
		return false, nil
	}
	r := op.Responses.Status(status)
	if r == nil {
		r = op.Responses.Default()
	}
	if r == nil || r.Value == nil {
		return false, nil
	}
	return validateContent(r.Value.Content, contentType, body)
}

// validateRequestBody checks a JSON request body against the schema of
// the route's request body, as validateBody checks a response's; an empty
// body (kin-openapi says whether one was required) and others are left to
// kin-openapi.
func validateRequestBody(op *openapi3.Operation, contentType string, body []byte) (validated bool, err error) {
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil || len(body) == 0 {
		return false, nil
	}
	return validateContent(op.RequestBody.Value.Content, contentType, body)
}

// validateContent checks a JSON body against content's schema for its
// content type, compiled once (see bodySchemas).
func validateContent(content openapi3.Content, contentType string, body []byte) (validated bool, err error) {
	if !strings.Contains(contentType, "json") {
		return false, nil
	}
	mt := content.Get(contentType)
	if mt == nil || mt.Schema == nil {
		return false, nil
	}
	s, err := bodySchema(mt.Schema)
	if err != nil {
		return true, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return true, fmt.Errorf("the body is not JSON: %w", err)
	}
	return true, s.Validate(v)
}
