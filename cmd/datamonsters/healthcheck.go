package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// runHealthcheck asks the server listening on ADDR (read through getenv)
// whether it is ready (GET /readyz on loopback, 3 s at most) and returns 0
// if it is, 1 otherwise. It is the image's HEALTHCHECK, which has no shell
// or curl to do it.
func runHealthcheck(getenv func(string) string) int {
	addr := strings.TrimSpace(getenv("ADDR"))
	if addr == "" {
		addr = ":8080"
	}
	url := defaultBaseURL(addr) + "/readyz"
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "datamonsters healthcheck:", err)
		return 1
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "datamonsters healthcheck:", err)
		return 1
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		fmt.Fprintf(os.Stderr, "datamonsters healthcheck: %s answered %s\n", url, res.Status)
		return 1
	}
	return 0
}
