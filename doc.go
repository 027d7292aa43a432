// Package turns is the root of the Data Monsters turn service module. It
// holds only what the service embeds from the repository root: OpenAPI,
// the API contract (openapi.yaml).
//
// The service: cmd/datamonsters wires the store (models) to the game's
// life (play) and the player's (accounts), the outbox (notifier), and
// the three front doors that translate and call them: the JSON API
// (api), the pages (web) and replies by email (inbound). The rules are a
// pure package of their own (engine). docs/design.md draws the house.
package turns
