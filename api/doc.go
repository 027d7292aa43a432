// Package api is the turn service's JSON front door: its route table
// (Server.Routes) lists every route grouped by the authentication it
// needs, the handlers, the authentication of requests (access tokens and
// scoped personal API tokens, checked by package accounts) and the single
// mapping from errors to RFC 9457 problem responses (ProblemFor, whose
// statuses are the shared table's of package refusal).
//
// Handlers are linear: decode strictly (unknown fields are rejected) →
// validate → call the play path (package play) or the accounts (package
// accounts) → respond. A handler writes its success and returns its
// refusal; the route table wraps it in handle, the one place that writes
// a problem (writeError). The API builds neither: main wires them, and mounts
// the API beside the pages on the house's router (package
// internal/router); Handler serves it alone. Request and response types
// are separate from the store's types. The contract is openapi.yaml at the
// repository root, served at /openapi.yaml.
package api
