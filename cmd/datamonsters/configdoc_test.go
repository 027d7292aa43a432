package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// envName is how a configuration variable is written.
var envName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*[A-Z0-9]$`)

// readVariables returns the variables loadConfig reads, sorted: it runs
// loadConfig through a getenv that records every name asked for, once with
// nothing set and once with everything set (so that a variable read only
// when another is set is asked for too).
func readVariables(t *testing.T) []string {
	t.Helper()
	read := map[string]bool{}
	full := map[string]string{
		"DATABASE_URL": "postgres://u@127.0.0.1:1/db", "ADDR": "127.0.0.1:9", "DATA_DIR": t.TempDir(),
		"JWT_SECRET": strings.Repeat("s", 32), "BASE_URL": "http://dm.example", "SMTP_HOST": "smtp.example",
		"SMTP_PORT": "587", "SMTP_TLS": "starttls", "SMTP_USERNAME": "u", "SMTP_PASSWORD": "p", "MAIL_DIR": t.TempDir(),
		"WEBHOOK_ALLOW_PRIVATE": "true", "WEBHOOK_TIMEOUT": "5s", "TRUSTED_PROXIES": "10.0.0.1",
	}
	for _, env := range []map[string]string{{"DATA_DIR": t.TempDir()}, full} {
		if _, err := loadConfig(func(k string) string { read[k] = true; return env[k] }); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for k := range read {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// configHeading is the heading of the configuration table
// (docs/configuration.md), at any level.
var configHeading = regexp.MustCompile(`(?m)^#+ Configuration\s*$`)

// documentedVariables returns the variables named in the first column of
// the table under the "Configuration" heading of docs/configuration.md
// (up to the next heading), in order.
func documentedVariables(readme string) []string {
	loc := configHeading.FindStringIndex(readme)
	if loc == nil {
		return nil
	}
	section := readme[loc[1]:]
	if i := strings.Index(section, "\n#"); i >= 0 {
		section = section[:i]
	}
	var out []string
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "|") || len(cells) < 3 {
			continue
		}
		for _, f := range strings.Split(cells[1], "`") {
			if f = strings.TrimSpace(f); envName.MatchString(f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// exampleVariables returns the variables .env.example sets or shows
// commented out ("# NAME=value"), in order.
func exampleVariables(example string) []string {
	var out []string
	for _, line := range strings.Split(example, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#"))
		if name, _, ok := strings.Cut(line, "="); ok && envName.MatchString(name) {
			out = append(out, name)
		}
	}
	return out
}

// configDocProblems compares the variables the code reads with those a
// document lists, and says which are missing from it, listed but not
// read, or listed twice.
func configDocProblems(doc string, read, listed []string) []string {
	var out []string
	for _, v := range read {
		if !slices.Contains(listed, v) {
			out = append(out, v+" is read by the code but not in "+doc)
		}
	}
	seen := map[string]bool{}
	for _, v := range listed {
		if !slices.Contains(read, v) {
			out = append(out, v+" is in "+doc+" but the code does not read it")
		}
		if seen[v] {
			out = append(out, v+" is in "+doc+" twice")
		}
		seen[v] = true
	}
	return out
}

// envReads matches a call that reads the process environment directly
// (os.Getenv and os.Getenv passed as a value are told apart by the
// parenthesis).
var envReads = regexp.MustCompile(`\b(os\.Getenv|os\.LookupEnv|os\.Environ|syscall\.Getenv)\(`)

// TestConfigTableMatchesCode: the configuration table (docs/configuration.md) and
// .env.example list exactly the variables loadConfig reads, and no code
// of the service reads the environment anywhere else (where a variable
// could hide from this test); the test helpers in models/modelstest
// (TEST_DATABASE_URL, documented under Tests) are the only exception.
func TestConfigTableMatchesCode(t *testing.T) {
	read := readVariables(t)
	readme, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("../../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	problems := configDocProblems("the configuration table", read, documentedVariables(string(readme)))
	problems = append(problems, configDocProblems(".env.example", read, exampleVariables(string(example)))...)
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "../.." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "modelstest") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if code, _, _ := strings.Cut(line, "//"); envReads.MatchString(code) {
				problems = append(problems, path+":"+strconv.Itoa(i+1)+" reads the environment outside loadConfig: "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(read) < 20 {
		t.Fatalf("loadConfig read only %v", read)
	}
}

// TestConfigTableCatchesChanges is the test of TestConfigTableMatchesCode's
// checks: a variable read without its row, a row without its variable, and
// a row given twice are each reported, by name.
func TestConfigTableCatchesChanges(t *testing.T) {
	read := readVariables(t)
	readme, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := documentedVariables(string(readme))
	if p := configDocProblems("README", read, listed); len(p) != 0 {
		t.Fatalf("the table itself: %v", p)
	}
	withoutRow := strings.Replace(string(readme), "| `MAIL_DIR` |", "| `MAIL_FOLDER` |", 1)
	p := configDocProblems("README", append(read, "NEW_KNOB"), documentedVariables(withoutRow))
	for _, want := range []string{"NEW_KNOB is read by the code but not in README", "MAIL_DIR is read by the code but not in README",
		"MAIL_FOLDER is in README but the code does not read it"} {
		if !slices.Contains(p, want) {
			t.Errorf("not reported: %q (got %q)", want, p)
		}
	}
	twice := strings.Replace(string(readme), "| `ADDR` |", "| `ADDR` / `LOG_LEVEL` |", 1)
	if p := configDocProblems("README", read, documentedVariables(twice)); !slices.Contains(p, "LOG_LEVEL is in README twice") {
		t.Errorf("a row given twice is not reported: %q", p)
	}
	if got := exampleVariables("# A comment\n# ADDR=:8080\nLOG_LEVEL=debug\n#   not=this\n"); !slices.Equal(got, []string{"ADDR", "LOG_LEVEL"}) {
		t.Errorf("exampleVariables: %q", got)
	}
	if !envReads.MatchString(`v := os.Getenv("X")`) || envReads.MatchString(`loadConfig(os.Getenv)`) {
		t.Error("envReads tells a call from a function value wrongly")
	}
}
