package turns

import _ "embed"

// OpenAPI is openapi.yaml, the API contract, served at /openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte
