// Package servetest runs the real `datamonsters serve` binary for tests:
// built once per test process, started on a free loopback port, stopped
// when the test ends.
package servetest
