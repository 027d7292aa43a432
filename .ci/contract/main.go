// Command contract holds openapi.yaml to the promise of docs/api-changes.md:
// no breaking change reaches clients unannounced.
//
// It compares the working openapi.yaml with the last published contract
// (the highest version in published/, one file per released version,
// openapi-X.Y.Z.yaml) with oasdiff's breaking-change checks, and fails
//
//   - on a breaking change (an oasdiff finding of level error) that no
//     entry of docs/api-changes.md lists under the version that makes it
//     (a "## X.Y.Z" section after the published version, at most
//     info.version; "## Unreleased" names no version, so it does not do);
//   - when info.version is not semantic versioning, is below the published
//     version, stays equal to it while the document changed, or keeps the
//     published major number across a breaking change.
//
// A new enum value in a response is no breaking change here: the contract
// announces that responses gain values (see growing).
//
// An entry lists the findings it covers after its "**Breaking**" mark, in
// parentheses: each finding as its oasdiff rule id and words that its
// method, path, operation id or text contain, all as code spans, findings
// separated by ";". For example
//
//   - **Breaking** (`response-required-property-removed` `label`): a prompt
//     option's `label` is its `text` now. Adapt: read `text`.
//
// Run it from this folder (go run .) or with -root naming the repository.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/oasdiff/checker"
	"github.com/oasdiff/oasdiff/diff"
	"github.com/oasdiff/oasdiff/load"
)

func main() {
	root := flag.String("root", "../..", "the repository's folder")
	flag.Parse()
	r, err := check(filepath.Join(*root, "openapi.yaml"), filepath.Join(*root, ".ci/contract/published"),
		filepath.Join(*root, "docs/api-changes.md"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "contract check:", err)
		os.Exit(2)
	}
	fmt.Printf("openapi.yaml %s against the published %s: %d breaking changes, %d listed in docs/api-changes.md\n",
		r.version, r.published, len(r.breaking), len(r.breaking)-len(r.unlisted))
	for _, p := range r.problems() {
		fmt.Println("  " + p)
	}
	if !r.ok() {
		os.Exit(1)
	}
}

// finding is one breaking change oasdiff found.
type finding struct {
	id, method, path, operationID, text string
}

func (f finding) String() string {
	return fmt.Sprintf("%s %s (%s): %s [%s]", f.method, f.path, f.operationID, f.text, f.id)
}

// haystack is what an entry's words are looked for in.
func (f finding) haystack() string {
	return strings.Join([]string{f.method, f.path, f.operationID, f.text}, " ")
}

// result is what check found.
type result struct {
	version, published semver
	breaking           []finding
	unlisted           []finding
	versionProblems    []string
}

func (r *result) ok() bool { return len(r.unlisted) == 0 && len(r.versionProblems) == 0 }

// problems words what fails the check, one line each.
func (r *result) problems() []string {
	out := append([]string(nil), r.versionProblems...)
	for _, f := range r.unlisted {
		out = append(out, "not in docs/api-changes.md: "+f.String())
	}
	return out
}

// check compares the document at spec with the highest version in
// publishedDir, and the findings with the changelog at changes.
func check(spec, publishedDir, changes string) (*result, error) {
	base, basePath, err := latest(publishedDir)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	s1, err := load.NewSpecInfo(loader, load.NewSource(basePath))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", basePath, err)
	}
	s2, err := load.NewSpecInfo(loader, load.NewSource(spec))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	r := &result{published: base}
	if r.version, err = parseSemver(s2.Spec.Info.Version); err != nil {
		r.versionProblems = append(r.versionProblems, fmt.Sprintf("info.version %q is not semantic versioning (MAJOR.MINOR.PATCH)", s2.Spec.Info.Version))
	}
	d, sources, err := diff.GetWithOperationsSourcesMap(diff.NewConfig(), s1, s2)
	if err != nil {
		return nil, err
	}
	localize := checker.NewDefaultLocalizer()
	config := checker.NewConfig(checker.GetAllChecks(), checker.WithSeverityLevels(growing))
	for _, c := range checker.CheckBackwardCompatibilityUntilLevel(config, d, sources, checker.ERR) {
		if c.GetLevel() != checker.ERR {
			continue
		}
		r.breaking = append(r.breaking, finding{id: c.GetId(), method: c.GetOperation(), path: c.GetPath(),
			operationID: c.GetOperationId(), text: c.GetUncolorizedText(localize)})
	}
	text, err := os.ReadFile(changes)
	if err != nil {
		return nil, err
	}
	entries, err := parseChanges(string(text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", changes, err)
	}
	for _, f := range r.breaking {
		if !covered(f, entries, base, r.version) {
			r.unlisted = append(r.unlisted, f)
		}
	}
	if r.version != (semver{}) {
		switch {
		case r.version.less(base):
			r.versionProblems = append(r.versionProblems, fmt.Sprintf("info.version %s is below the published %s", r.version, base))
		case len(r.breaking) > 0 && r.version.major <= base.major:
			r.versionProblems = append(r.versionProblems, fmt.Sprintf(
				"info.version %s: a breaking change since %s needs the next major version", r.version, base))
		case r.version == base && !d.Empty():
			r.versionProblems = append(r.versionProblems, fmt.Sprintf(
				"info.version is still the published %s, but the document changed: raise it", base))
		}
	}
	return r, nil
}

// growing are the checks of changes the contract announces as additive
// (its description, "Growing"): a client ignores enum values of responses
// it does not know, so a new one breaks nothing. Removing a value, or
// adding one to what a client sends, stays breaking.
var growing = map[string]checker.Level{
	"response-property-enum-value-added":            checker.INFO,
	"response-mediatype-enum-value-added":           checker.INFO,
	"response-write-only-property-enum-value-added": checker.INFO,
}

var publishedName = regexp.MustCompile(`^openapi-(\d+\.\d+\.\d+)\.yaml$`)

// latest returns the highest version published in dir and its file.
func latest(dir string) (semver, string, error) {
	files, err := os.ReadDir(dir)
	if err != nil {
		return semver{}, "", err
	}
	var best semver
	var path string
	for _, f := range files {
		m := publishedName.FindStringSubmatch(f.Name())
		if m == nil {
			continue
		}
		v, err := parseSemver(m[1])
		if err != nil {
			return semver{}, "", fmt.Errorf("%s: %w", f.Name(), err)
		}
		if path == "" || best.less(v) {
			best, path = v, filepath.Join(dir, f.Name())
		}
	}
	if path == "" {
		return semver{}, "", errors.New(dir + ": no published contract (openapi-X.Y.Z.yaml)")
	}
	return best, path, nil
}

// entry is one breaking change the changelog lists: the version section
// it is in (zero for Unreleased) and the findings it covers.
type entry struct {
	version semver
	covers  []cover
}

// cover is one finding an entry covers: its rule id and the words its
// method, path, operation id or text all contain.
type cover struct {
	id    string
	words []string
}

var (
	sectionLine = regexp.MustCompile(`^##\s+(\S+)`)
	codeSpan    = regexp.MustCompile("`([^`]+)`")
)

// parseChanges reads the breaking entries of the changelog: bullets ("- ")
// whose text starts with "**Breaking**", with their continuation lines.
func parseChanges(text string) ([]entry, error) {
	var out []entry
	var section semver
	var bullet []string
	flush := func() error {
		defer func() { bullet = nil }()
		if bullet == nil {
			return nil
		}
		b := strings.Join(bullet, " ")
		rest, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(b, "- ")), "**Breaking**")
		if !ok {
			return nil
		}
		rest = strings.TrimSpace(rest)
		if !strings.HasPrefix(rest, "(") {
			return nil // a breaking change oasdiff cannot see: prose only
		}
		end := strings.Index(rest, ")")
		if end < 0 {
			return fmt.Errorf("a breaking entry's list of findings has no closing parenthesis: %s", b)
		}
		e := entry{version: section}
		for _, group := range strings.Split(rest[1:end], ";") {
			var spans []string
			for _, m := range codeSpan.FindAllStringSubmatch(group, -1) {
				spans = append(spans, m[1])
			}
			if len(spans) == 0 {
				return fmt.Errorf("a finding without its rule id in: %s", b)
			}
			e.covers = append(e.covers, cover{id: spans[0], words: spans[1:]})
		}
		out = append(out, e)
		return nil
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			if err := flush(); err != nil {
				return nil, err
			}
			if m := sectionLine.FindStringSubmatch(line); m != nil && strings.HasPrefix(line, "## ") {
				section, _ = parseSemver(m[1]) // Unreleased and others: zero
			}
		case strings.HasPrefix(line, "- "):
			if err := flush(); err != nil {
				return nil, err
			}
			bullet = []string{line}
		case bullet != nil && strings.HasPrefix(line, "  ") && strings.TrimSpace(line) != "":
			bullet = append(bullet, strings.TrimSpace(line))
		default:
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	return out, flush()
}

// covered reports whether an entry of a version after base, at most
// current, lists f.
func covered(f finding, entries []entry, base, current semver) bool {
	hay := f.haystack()
	for _, e := range entries {
		if e.version == (semver{}) || !base.less(e.version) || current.less(e.version) {
			continue
		}
		for _, c := range e.covers {
			if c.id != f.id {
				continue
			}
			all := true
			for _, w := range c.words {
				all = all && strings.Contains(hay, w)
			}
			if all {
				return true
			}
		}
	}
	return false
}

// semver is a MAJOR.MINOR.PATCH version; the zero value is none.
type semver struct{ major, minor, patch int }

var semverPattern = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$`)

func parseSemver(s string) (semver, error) {
	m := semverPattern.FindStringSubmatch(s)
	if m == nil {
		return semver{}, fmt.Errorf("%q is not MAJOR.MINOR.PATCH", s)
	}
	var v [3]int
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	return semver{v[0], v[1], v[2]}, nil
}

func (v semver) less(w semver) bool {
	a, b := []int{v.major, v.minor, v.patch}, []int{w.major, w.minor, w.patch}
	return compare(a, b) < 0
}

func compare(a, b []int) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (v semver) String() string { return fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch) }
