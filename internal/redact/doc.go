// Package redact keeps email addresses out of the logs: Email shortens one
// address, Handler rewrites every address in a log record.
package redact
