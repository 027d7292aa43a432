package modelstest

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"testing"
)

// TestProcessDatabase: the schemas of one test process share a database
// of its own, not the one TEST_DATABASE_URL names; the databases of ended
// processes of this machine are dropped, those of running ones and of
// other machines kept.
func TestProcessDatabase(t *testing.T) {
	a, b := SchemaURL(t), SchemaURL(t)
	ua, _ := url.Parse(a)
	ub, _ := url.Parse(b)
	base, _ := url.Parse(os.Getenv(EnvURL))
	if ua.Path != ub.Path || ua.Path == base.Path {
		t.Fatalf("databases %s and %s, want one of the process's own (not %s)", ua.Path, ub.Path, base.Path)
	}
	if ua.Query().Get("search_path") == ub.Query().Get("search_path") {
		t.Fatal("two tests got one schema")
	}

	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	db, err := maintenance(*base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() }) // after the drops below
	gone := fmt.Sprintf("%s%d_%s", processPrefix, ended.Process.Pid, "ended")
	kept := fmt.Sprintf("%s%d_%s", processPrefix, os.Getpid(), "running")
	elsewhere := fmt.Sprintf("test_run_00000000_%d_%s", ended.Process.Pid, "elsewhere") // another machine's
	for _, name := range []string{gone, kept, elsewhere} {
		if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Exec("DROP DATABASE IF EXISTS " + name) })
	}
	dropEnded(db)
	if exists(t, db, gone) || !exists(t, db, kept) || !exists(t, db, elsewhere) || !exists(t, db, ua.Path[1:]) {
		t.Fatalf("after dropEnded: %s %t (want false), %s %t, %s %t, %s %t (want true)", gone, exists(t, db, gone),
			kept, exists(t, db, kept), elsewhere, exists(t, db, elsewhere), ua.Path[1:], exists(t, db, ua.Path[1:]))
	}
}

func exists(t *testing.T, db *sql.DB, name string) bool {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}
