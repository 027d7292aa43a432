package models

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"gorm.io/gorm"
)

//go:embed migrations
var migrationFS embed.FS

// Migration is one numbered schema change.
type Migration struct {
	Version int    // from the file name: 0001_init.sql is version 1
	Name    string // file name
	SQL     string
}

// Migrations returns the migrations for dialect, in order.
func Migrations(d Dialect) ([]Migration, error) {
	dir := path.Join("migrations", string(d))
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a number and _", name)
		}
		data, err := fs.ReadFile(migrationFS, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(data)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("two migrations numbered %d", out[i].Version)
		}
	}
	return out, nil
}

// Migrate applies the migrations not yet recorded in schema_migrations, each
// in its own transaction, and returns the names of those it applied. On
// Postgres an advisory lock keeps two starting servers from migrating at once.
func (s *Store) Migrate(ctx context.Context) ([]string, error) {
	migs, err := Migrations(s.dialect)
	if err != nil {
		return nil, err
	}
	db := s.db.WithContext(ctx)
	if err := db.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		applied_at TEXT NOT NULL)`).Error; err != nil {
		return nil, fmt.Errorf("schema_migrations: %w", err)
	}
	var applied []string
	for _, m := range migs {
		done := false
		err := db.Transaction(func(tx *gorm.DB) error {
			if s.dialect == Postgres {
				if err := tx.Exec(`SELECT pg_advisory_xact_lock(7746201)`).Error; err != nil {
					return err
				}
			}
			var n int64
			if err := tx.Raw(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n).Error; err != nil {
				return err
			}
			if n > 0 {
				done = true
				return nil
			}
			if err := tx.Exec(m.SQL).Error; err != nil {
				return err
			}
			return tx.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.Version, m.Name, s.Now().Format("2006-01-02T15:04:05Z")).Error
		})
		if err != nil {
			return applied, fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if !done {
			applied = append(applied, m.Name)
		}
	}
	return applied, nil
}
