package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestRepositoryContract is the check CI runs: the working openapi.yaml
// against the published contract and docs/api-changes.md.
func TestRepositoryContract(t *testing.T) {
	r, err := check("../../openapi.yaml", "published", "../../docs/api-changes.md")
	if err != nil {
		t.Fatal(err)
	}
	if !r.ok() {
		t.Fatalf("%s", strings.Join(r.problems(), "\n"))
	}
	// The baseline is a release: its version has a dated section of its
	// own in the changelog, and the one before it (1.0.0, whose breaking
	// changes 2.0.0 lists) is kept beside it.
	changes, err := os.ReadFile("../../docs/api-changes.md")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^## ` + regexp.QuoteMeta(r.published.String()) + ` \(\d{4}-\d{2}-\d{2}\)$`).Match(changes) {
		t.Fatalf("the published %s has no dated section in docs/api-changes.md", r.published)
	}
	dir := t.TempDir()
	v1, err := os.ReadFile("published/openapi-1.0.0.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "openapi-1.0.0.yaml"), v1, 0o644); err != nil {
		t.Fatal(err)
	}
	older, err := check("../../openapi.yaml", dir, "../../docs/api-changes.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(older.breaking) == 0 || len(older.unlisted) != 0 {
		t.Fatalf("against 1.0.0: %d breaking changes, %d not listed", len(older.breaking), len(older.unlisted))
	}
}

// variant writes openapi.yaml, changed by change, as a document in dir,
// and returns its path.
func variant(t *testing.T, dir, name string, change func(doc *openapi3.T)) string {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile("../../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	change(doc)
	data, err := doc.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func schema(doc *openapi3.T, name string) *openapi3.Schema { return doc.Components.Schemas[name].Value }

func without(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// TestCheckFailsOnBreakingChanges runs the check on copies of openapi.yaml
// against openapi.yaml itself published: a removed response field and a
// new required request field fail it unless docs/api-changes.md lists them
// under a new major version; an added optional field passes with a minor
// version.
func TestCheckFailsOnBreakingChanges(t *testing.T) {
	dir := t.TempDir()
	published := filepath.Join(dir, "published")
	if err := os.Mkdir(published, 0o755); err != nil {
		t.Fatal(err)
	}
	current := variant(t, dir, "current.json", func(*openapi3.T) {})
	doc, _ := openapi3.NewLoader().LoadFromFile(current)
	base := doc.Info.Version
	if err := os.Rename(current, filepath.Join(published, "openapi-"+base+".yaml")); err != nil {
		t.Fatal(err)
	}
	v, _ := parseSemver(base)
	minor := semver{v.major, v.minor + 1, 0}.String()
	major := semver{v.major + 1, 0, 0}.String()
	setVersion := func(s string) func(*openapi3.T) { return func(d *openapi3.T) { d.Info.Version = s } }
	removeField := func(d *openapi3.T) {
		u := schema(d, "User")
		delete(u.Properties, "display_name")
		u.Required = without(u.Required, "display_name")
	}
	requireField := func(d *openapi3.T) {
		r := schema(d, "RegisterRequest")
		r.Properties["invite_code"] = openapi3.NewStringSchema().NewRef()
		r.Required = append(r.Required, "invite_code")
	}
	addOptional := func(d *openapi3.T) {
		schema(d, "RegisterRequest").Properties["referrer"] = openapi3.NewStringSchema().NewRef()
		schema(d, "User").Properties["avatar_url"] = openapi3.NewStringSchema().NewRef()
	}
	both := func(fs ...func(*openapi3.T)) func(*openapi3.T) {
		return func(d *openapi3.T) {
			for _, f := range fs {
				f(d)
			}
		}
	}
	listed := func(section string) string {
		return "# API changes\n\n## Unreleased\n\n## " + section + "\n\n" +
			"- **Breaking** (`response-required-property-removed` `display_name`): gone.\n" +
			"- **Breaking** (`new-required-request-property` `invite_code`;\n" +
			"  `new-required-request-property` `invite_code` `register`): needed.\n"
	}
	const empty = "# API changes\n\n## Unreleased\n"
	cases := []struct {
		name, changes string
		change        func(*openapi3.T)
		ok            bool
		want          []string // in the problems
	}{
		{"unchanged", empty, func(*openapi3.T) {}, true, nil},
		{"removed response field", empty, both(removeField, setVersion(major)), false,
			[]string{"response-required-property-removed", "display_name", "GET /v1/me"}},
		{"new required request field", empty, both(requireField, setVersion(major)), false,
			[]string{"new-required-request-property", "invite_code", "POST /v1/auth/register"}},
		{"added optional fields", empty, both(addOptional, setVersion(minor)), true, nil},
		{"added optional fields, version kept", empty, addOptional, false, []string{"raise it"}},
		{"a new enum value in responses", empty, both(func(d *openapi3.T) {
			k := schema(d, "NotificationKind")
			k.Enum = append(k.Enum, "surprise")
		}, setVersion(minor)), true, nil},
		{"an enum value a request may no longer send", empty, both(func(d *openapi3.T) {
			typ := schema(d, "Action").Properties["type"].Value
			typ.Enum = typ.Enum[:len(typ.Enum)-1]
		}, setVersion(major)), false, []string{"request-property-enum-value-removed", "submitActions"}},
		{"both listed under the new major", listed(major), both(removeField, requireField, setVersion(major)), true, nil},
		{"listed, but in a minor version", listed(minor), both(removeField, requireField, setVersion(minor)), false,
			[]string{"needs the next major version"}},
		{"listed under Unreleased only", strings.Replace(listed(major), "## "+major+"\n", "", 1),
			both(removeField, setVersion(major)), false, []string{"display_name"}},
		{"listed under a version after info.version", listed(semver{v.major + 2, 0, 0}.String()),
			both(removeField, setVersion(major)), false, []string{"display_name"}},
		{"listed for another field", strings.ReplaceAll(listed(major), "`display_name`", "`email`"),
			both(removeField, setVersion(major)), false, []string{"display_name"}},
		{"not semver", empty, setVersion("2.0"), false, []string{"not semantic versioning"}},
		{"below the published", empty, setVersion("0.9.0"), false, []string{"below the published"}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := variant(t, dir, "v"+string(rune('a'+i))+".json", c.change)
			changes := filepath.Join(dir, "changes"+string(rune('a'+i))+".md")
			if err := os.WriteFile(changes, []byte(c.changes), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := check(spec, published, changes)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(r.problems(), "\n")
			if r.ok() != c.ok {
				t.Fatalf("ok = %v, want %v; problems:\n%s", r.ok(), c.ok, got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems lack %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestParseChanges reads the findings a breaking entry names, across its
// continuation lines, and only those of breaking entries with a list.
func TestParseChanges(t *testing.T) {
	es, err := parseChanges("# API changes\n## 2.0.0 (2026-12-01)\n" +
		"- **Breaking** (`rule-a` `x` `y`;\n  `rule-b`): prose with `code`.\n" +
		"- **Breaking**: prose only, `rule-c`.\n- Added `rule-d` (`e`).\n## Unreleased\n- **Breaking** (`rule-e`): x\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].version != (semver{2, 0, 0}) || es[1].version != (semver{}) {
		t.Fatalf("entries %+v", es)
	}
	c := es[0].covers
	if len(c) != 2 || c[0].id != "rule-a" || strings.Join(c[0].words, ",") != "x,y" || c[1].id != "rule-b" || len(c[1].words) != 0 {
		t.Fatalf("covers %+v", c)
	}
	if _, err := parseChanges("## 1.0.0\n- **Breaking** (`rule-a`: no end\n"); err == nil {
		t.Fatal("an unclosed list passed")
	}
}
