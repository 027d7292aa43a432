// Package api is the turn service's HTTP API: a gin router whose route table
// (Server.routes) lists every route grouped by the authentication it needs,
// the handlers, authentication (argon2id passwords, JWT access tokens,
// rotating refresh tokens, scoped personal API tokens) and the single mapping
// from errors to RFC 9457 problem responses (problemFor).
//
// Handlers are linear: decode strictly (unknown fields are rejected) →
// validate → call the store or the engine → respond. Request and response
// types are separate from the store's types. The contract is openapi.yaml
// at the repository root, served at /openapi.yaml.
package api
