package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/internal/servetest"
)

// readmeSkip marks a README shell block that TestReadme does not run: the
// line before its fence is "<!-- readme-test: skip (why) -->".
const readmeSkip = "<!-- readme-test: skip"

// readmeBlock is one ```sh block of the README.
type readmeBlock struct {
	Line int    // of the opening fence, 1-based
	Code string // the commands
	Skip bool   // marked with readmeSkip
}

// readmeBlocks returns the ```sh blocks of a Markdown text in order.
func readmeBlocks(md string) ([]readmeBlock, error) {
	lines := strings.Split(md, "\n")
	var out []readmeBlock
	prev := ""
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "```sh" {
			b := readmeBlock{Line: i + 1, Skip: strings.HasPrefix(prev, readmeSkip)}
			j := i + 1
			for j < len(lines) && strings.TrimSpace(lines[j]) != "```" {
				j++
			}
			if j == len(lines) {
				return nil, fmt.Errorf("line %d: the sh block has no closing fence", i+1)
			}
			b.Code = strings.Join(lines[i+1:j], "\n")
			out = append(out, b)
			i = j
			prev = ""
			continue
		}
		if l != "" {
			prev = l
		}
	}
	return out, nil
}

// TestReadme runs the README's ```sh blocks, all but those marked with
// readmeSkip, in order in one bash (set -e, pipefail) against a freshly
// started `datamonsters serve` on a free port, with SQLite and MAIL_DIR in
// temporary folders, and BASE_URL and MAIL_DIR set for the blocks as a
// reader's shell would have them. Then it checks through the API that the
// walkthrough played a turn and that the emails it shows were written.
// It needs bash, curl and jq; without them it skips, except under CI.
func TestReadme(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is needed by the README walkthrough (.ci/run installs it): %v", tool, err)
			}
			t.Skipf("%s not found: the README walkthrough needs it", tool)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := readmeBlocks(string(md))
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	script.WriteString("set -eo pipefail\n")
	run := 0
	for _, b := range blocks {
		if b.Skip {
			continue
		}
		run++
		fmt.Fprintf(&script, "echo '### README.md:%d'\n%s\n", b.Line, b.Code)
	}
	if run < 3 || !strings.Contains(script.String(), "/v1/auth/register") || !strings.Contains(script.String(), "/actions") {
		t.Fatalf("the README has %d sh blocks to run, and they should hold the walkthrough:\n%s", run, script.String())
	}

	data, mailDir := t.TempDir(), t.TempDir()
	srv := servetest.Start(t, []string{"PATH=" + os.Getenv("PATH"), "DATA_DIR=" + data, "MAIL_DIR=" + mailDir})
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "BASE_URL="+srv.Base, "MAIL_DIR="+mailDir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		cmd.Process.Kill()
		err = <-done
	}
	if err != nil {
		t.Fatalf("the README's blocks failed: %v\n%s\nserver log:\n%s", err, out.String(), srv.Stderr)
	}
	t.Logf("README output:\n%s", out.String())

	// The walkthrough played a turn: the game is past its start (version 3).
	var login struct {
		AccessToken string `json:"access_token"`
	}
	postJSON(t, srv.Base+"/v1/auth/login", `{"username":"ana","password":"correct horse"}`, &login)
	var game struct {
		Version int `json:"version"`
		Seats   []struct {
			Awaited bool `json:"awaited"`
		} `json:"seats"`
	}
	getJSON(t, srv.Base+"/v1/games/1", login.AccessToken, &game)
	if game.Version <= 3 || len(game.Seats) != 2 {
		t.Fatalf("after the walkthrough the game is at version %d with %d seats, want a turn played", game.Version, len(game.Seats))
	}
	// Its emails are in MAIL_DIR, for both players, and one of the turn
	// played (the next turn, or a decision the turn opened).
	afterTurn := regexp.MustCompile(`\.g1\.v([4-9]|[1-9][0-9]+)\.`)
	for _, want := range []string{".invitation.u2.", ".game_started.u1.", ".game_started.u2.", "after the turn"} {
		deadline := time.Now().Add(30 * time.Second)
		for {
			files, _ := filepath.Glob(filepath.Join(mailDir, "*.eml"))
			if slices.ContainsFunc(files, func(f string) bool {
				return strings.Contains(f, want) || (want == "after the turn" && afterTurn.MatchString(f))
			}) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s email in MAIL_DIR: %v", strings.Trim(want, "."), files)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if !strings.Contains(out.String(), "Subject: [Data Monsters]") {
		t.Errorf("the walkthrough showed no email subject:\n%s", out.String())
	}
}

func postJSON(t *testing.T, url, body string, dst any) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("POST %s: %s", url, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(dst); err != nil {
		t.Fatal(err)
	}
}

func getJSON(t *testing.T, url, token string, dst any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %s", url, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(dst); err != nil {
		t.Fatal(err)
	}
}

func TestReadmeBlocks(t *testing.T) {
	md := "intro\n```sh\necho one\n```\n\n<!-- readme-test: skip (server) -->\n\n```sh\nserve\n```\n```go\nx\n```\n```sh\na\nb\n```\n"
	bs, err := readmeBlocks(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 3 || bs[0].Code != "echo one" || bs[0].Skip || !bs[1].Skip || bs[1].Code != "serve" || bs[2].Code != "a\nb" || bs[2].Skip || bs[2].Line != 14 {
		t.Fatalf("%+v", bs)
	}
	if _, err := readmeBlocks("```sh\nopen"); err == nil {
		t.Fatal("an unclosed block parsed")
	}
}
