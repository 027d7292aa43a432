// Package client is a Go client of the Data Monsters turn service,
// generated from openapi.yaml by oapi-codegen (client.gen.go: do not edit
// it; change openapi.yaml and run go generate ./client). NewClientWithResponses
// gives one method per operation of the contract, each with its typed
// request and response bodies; the example plays a whole game against the
// service's bot with nothing else.
//
// The contract grows (docs/api-changes.md): the generated types ignore
// fields they do not know, so a client built on them keeps working when a
// release adds some.
package client

//go:generate go -C ../.ci/contract tool oapi-codegen -config ../../client/oapi-codegen.yaml ../../openapi.yaml
