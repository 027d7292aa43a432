package client_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/datamonsters/turns/client"
)

// A client of the service at localhost:8080 registers, then reads what its
// seat may do in a game. client/example plays a whole game this way.
func ExampleNewClientWithResponses() {
	ctx := context.Background()
	c, err := client.NewClientWithResponses("http://localhost:8080")
	if err != nil {
		panic(err)
	}
	reg, err := c.RegisterWithResponse(ctx, nil, client.RegisterRequest{Username: "ana", Password: "correct horse"})
	if err != nil || reg.JSON201 == nil {
		fmt.Println("register:", err)
		return
	}
	auth := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+reg.JSON201.AccessToken)
		return nil
	}
	legal, err := c.LegalActionsWithResponse(ctx, 1, auth)
	if err != nil || legal.JSON200 == nil {
		fmt.Println("legal actions:", err)
		return
	}
	for _, a := range legal.JSON200.Actions {
		fmt.Println(a.Type, a.Text)
	}
}
