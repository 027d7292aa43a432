// Package turns is the root of the Data Monsters turn service module. It
// holds only what the service embeds from the repository root: OpenAPI, the
// API contract (openapi.yaml). The service is in cmd/datamonsters, api,
// models and engine.
package turns
