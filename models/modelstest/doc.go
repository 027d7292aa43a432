// Package modelstest opens stores for tests: SQLite in a temporary folder,
// and Postgres in a fresh schema of the database named by TEST_DATABASE_URL
// (a test fails, not skips, when that database cannot be reached).
package modelstest
