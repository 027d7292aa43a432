// Package models stores the turn service's data: accounts and their tokens,
// custom decks, games with their seats, the append-only action and event logs,
// pending prompts and idempotency records.
//
// A Store runs on Postgres (production, selected by a postgres:// URL) or on an
// embedded SQLite file (no configuration; pure Go, no cgo). The schema is made
// of numbered SQL migrations embedded in the binary, one folder per dialect,
// applied by Migrate and recorded in the schema_migrations table. Queries that
// are more than a lookup by key are named SQL constants in queries.go.
//
// Changes to a game go through Store.Mutate, which runs in one transaction
// with the game row locked (SELECT ... FOR UPDATE on Postgres; SQLite has a
// single writer connection, so transactions are serialized). The store knows
// nothing of HTTP, and the rules live in package engine.
package models
